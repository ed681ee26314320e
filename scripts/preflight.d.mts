// Types for what main/doctor/ uses of scripts/preflight.mjs (the one list of prerequisites).
export interface DetectedOs {
  name: string;
  manager: 'apt' | 'dnf' | 'pacman' | 'zypper' | 'brew' | undefined;
}
export declare function onPath(name: string, env?: NodeJS.ProcessEnv): string | undefined;
export declare function chromiumPath(env?: NodeJS.ProcessEnv): string | undefined;
export declare function detectOs(env?: NodeJS.ProcessEnv, platform?: NodeJS.Platform): DetectedOs;
export declare function installCommand(ids: Array<'bubblewrap' | 'chromium' | 'toolchain' | 'python3'>, os: DetectedOs, opts?: { root?: boolean }): string | undefined;
