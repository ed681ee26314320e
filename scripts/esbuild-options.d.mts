import type { BuildOptions } from 'esbuild';
export declare const hostBundleOptions: BuildOptions;
