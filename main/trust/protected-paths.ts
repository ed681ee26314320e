// The files that decide what runs (docs/security.md "The files that decide what runs"), which no
// sandbox may write even where a workspace or write grant covers them: the profile file, every
// profiles folder (the user's, GATEHOUSE_PROFILES_DIR, the bundled workspace-profiles/ with its
// pin files) and what each server's command runs (program-identity.ts: executable, entry
// script, package). Computed once per launch, after the program hashes are warm, and handed to
// every spawn (main/sandbox/spawn-sandboxed.ts `protectedRead` → mount-plan.ts).
import os from 'node:os';
import path from 'node:path';
import type { ResolvedProfile } from '../profiles/types';
import { bundledProfilesDir, userProfilesDir } from '../paths';
import { launchSearchPath, prewarmProgram, programPaths } from './program-identity';

export function protectedPaths(profile: Pick<ResolvedProfile, 'file' | 'servers'>, searchPath: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const config = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  const out = new Set<string>([profile.file, userProfilesDir(env), path.join(config, 'gatehouse', 'profiles'), bundledProfilesDir()]);
  for (const spec of profile.servers) {
    if (spec.kind !== 'stdio') continue;
    for (const p of programPaths(spec, searchPath)) out.add(p);
  }
  return [...out];
}

export interface LaunchTrustInputs {
  /** The PATH the launch's servers are searched on (the trust guard pins programs found on it). */
  searchPath: string;
  protectedRead: string[];
}

/** What a launch computes once before anything starts: the search PATH, warm program hashes, the protected paths. */
export async function launchTrustInputs(profile: ResolvedProfile, env: NodeJS.ProcessEnv = process.env): Promise<LaunchTrustInputs> {
  const searchPath = await launchSearchPath(env);
  for (const spec of profile.servers) if (spec.kind === 'stdio' && !spec.disabled) await prewarmProgram(spec, searchPath);
  return { searchPath, protectedRead: protectedPaths(profile, searchPath, env) };
}
