// A `--profile` reference → the ResolvedProfile every command computes the same way: `launch`,
// `gateway`, the window (main/host.ts resolve) and `trust list|diff|accept|reject`
// (main/cli/trust-command.ts). One function so the launch identity they pin and check is the
// same (docs/trust.md "One identity everywhere"): the same default workspace, and `${secret:…}`
// from the same place (the secret store, then the environment).
import type { SecretProvider } from '../secrets/provider';
import { loadProfileFile } from './loader';
import { defaultProfileDirs, findProfile, isProfilePath } from './registry';
import { resolveProfile } from './resolve';
import type { ResolvedProfile } from './types';

export function resolveProfileRef(ref: string, ctx: { dataDir: string; env: NodeJS.ProcessEnv; secrets: SecretProvider; cwd?: string }): ResolvedProfile {
  const file = findProfile(ref, defaultProfileDirs(ctx.env));
  const loaded = loadProfileFile(file);
  // No `workspace:`: `--profile FILE` means "from where I am", a profile by name its own folder.
  const defaultWorkspace = isProfilePath(ref) ? 'cwd' : 'profile-folder';
  return resolveProfile(loaded, { dataDir: ctx.dataDir, env: ctx.env, secrets: ctx.secrets, defaultWorkspace, ...(ctx.cwd ? { cwd: ctx.cwd } : {}) });
}
