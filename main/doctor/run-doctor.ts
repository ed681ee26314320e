// `gatehouse doctor` and the window's first-run panel (`doctor:run`) run the same checks and give
// the same report (common/host-api-doctor.ts; docs/doctor.md lists every check).
import type { DoctorReport } from '../../common/host-api-doctor';
import type { SecretStore } from '../auth/secret-store';
import { dataDir as defaultDataDir } from '../paths';
import { detectOs } from '../../scripts/preflight.mjs';
import { appChecks } from './app-checks';
import { sandboxChecks } from './sandbox-checks';

export interface DoctorOptions {
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  platform?: NodeJS.Platform;
  /** The store the host already uses (the window's doctor:run); default: the one this machine gives. */
  secretStore?: () => SecretStore;
}

export function runDoctor(opts: DoctorOptions = {}): DoctorReport {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const dataDir = opts.dataDir ?? defaultDataDir(env);
  const checks = [...sandboxChecks({ env, platform }), ...appChecks({ dataDir, env, ...(opts.secretStore ? { secretStore: opts.secretStore } : {}) })];
  return { schema: 1, ok: checks.every((c) => c.status !== 'error'), platform: `${platform}-${process.arch}`, os: detectOs(env, platform).name, checks };
}
