// Which profiles exist and which file a `--profile` reference means.
//
// Directories are searched in order and a later one wins a name clash. The default order is
// [bundled, user], so a user's own `demo.yaml` shadows the bundled demo: a user's copy is
// the one they edited on purpose. Only the top level of each folder is read, so
// `workspace-profiles/examples/` stays documentation rather than launchable profiles.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { bundledProfilesDir, userProfilesDir } from '../paths';
import { loadProfileFile } from './loader';
import type { Decision, ToolSurface } from './types';

interface EntryBase {
  /** The profile's `name:`, else the file's name without extension. */
  name: string;
  /** Absolute path. */
  file: string;
  description?: string;
  /** Server ids, in file order. */
  servers: string[];
  /** True when a later directory has a profile of the same name (that one wins). */
  shadowed?: boolean;
}

export interface ValidProfileEntry extends EntryBase {
  toolSurface: ToolSurface;
  policyDefault: Decision;
  error?: undefined;
}

export interface InvalidProfileEntry extends EntryBase {
  /** The ProfileError message: one `file:line:col path: message` per line. */
  error: string;
  toolSurface?: undefined;
  policyDefault?: undefined;
}

export type ProfileEntry = ValidProfileEntry | InvalidProfileEntry;

export function defaultProfileDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  return [bundledProfilesDir(), userProfilesDir(env)];
}

const PROFILE_FILE = /\.ya?ml$/i;

/** Every profile file in `dirs` (missing folders are skipped); invalid ones carry `error`. */
export function listProfiles(dirs: string[] = defaultProfileDirs()): ProfileEntry[] {
  const entries: ProfileEntry[] = [];
  for (const dir of dirs) {
    for (const file of profileFiles(dir)) entries.push(entryFor(file));
  }
  const winner = new Map<string, ProfileEntry>();
  for (const e of entries) winner.set(e.name, e);
  for (const e of entries) if (winner.get(e.name) !== e) e.shadowed = true;
  return entries;
}

/** A `--profile` reference that names a file (a slash, or a .yaml/.yml ending) rather than a profile. */
export function isProfilePath(ref: string): boolean {
  return ref.includes('/') || ref.includes(path.sep) || PROFILE_FILE.test(ref);
}

/**
 * A `--profile` reference → absolute file path. A reference with a slash or a .yaml/.yml
 * ending is a path; anything else is a profile name looked up in `dirs` (later dirs win).
 */
export function findProfile(ref: string, dirs: string[] = defaultProfileDirs()): string {
  if (isProfilePath(ref)) {
    const file = path.resolve(ref);
    if (!existsSync(file)) throw new Error(`profile file ${ref} does not exist`);
    return file;
  }
  const entries = listProfiles(dirs);
  const hit = entries.filter((e) => e.name === ref).pop();
  if (hit) return hit.file;
  const names = [...new Set(entries.map((e) => e.name))].sort();
  const searched = dirs.join(', ');
  throw new Error(
    names.length > 0
      ? `no profile named '${ref}' (available: ${names.join(', ')}; searched ${searched})`
      : `no profile named '${ref}' (no profiles found in ${searched})`,
  );
}

function profileFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // a user profiles folder that does not exist yet is normal
  }
  return names
    .filter((n) => PROFILE_FILE.test(n))
    .sort()
    .map((n) => path.resolve(dir, n))
    .filter((f) => statSync(f, { throwIfNoEntry: false })?.isFile());
}

function entryFor(file: string): ProfileEntry {
  try {
    const loaded = loadProfileFile(file);
    const raw = loaded.raw;
    return {
      name: loaded.name,
      file,
      ...(raw.description !== undefined ? { description: raw.description } : {}),
      servers: Object.keys(raw.servers),
      toolSurface: raw.tool_surface,
      policyDefault: raw.policy.default,
    };
  } catch (err) {
    return {
      name: path.basename(file).replace(PROFILE_FILE, ''),
      file,
      servers: [],
      error: err instanceof Error ? err.message : String(err),
    };
  }
}
