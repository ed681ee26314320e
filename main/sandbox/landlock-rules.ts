// The mount plan (mount-plan.ts) as Landlock rules for native/landlock/gatehouse-landlock. The two
// models differ in one way that shapes everything here: mounts cover each other (a tmpfs over
// `~/.ssh` hides it inside a visible `/`), Landlock rules only add (a rule on `/` grants all of
// `/`, and nothing deeper can take it back). So a rule whose subtree holds something with fewer
// rights (a hidden path, a read-only profile folder inside a writable workspace) is not granted
// itself: its children are, one by one, skipping that path and descending towards it. Hidden
// paths are simply never granted.
//
// Consequences, said in docs/sandbox.md "Sandbox kinds": a folder on the way to a hidden path
// cannot be listed (`ls /` is refused: the folder itself holds no rule), and in a writable grant
// that holds a read-only or hidden path, no new entry can be made directly in the folders on the
// way to it (making one needs a right on that folder, which would reach the protected path too).
//
// Symlinks among the children get no rule: Landlock checks the object a path resolves to, so
// `/lib -> usr/lib` is covered by `/usr`'s rule, and a link into a hidden folder grants nothing.
import { readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { MountRule } from './mount-plan';

export type LandlockRule = { kind: 'ro' | 'rw' | 'dev'; path: string };

/** Device files a process needs opened read-write (no ioctl: Landlock's IOCTL_DEV stays refused). */
export const LANDLOCK_DEVICES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/tty'];

export interface LandlockRulesInput {
  rules: MountRule[];
  /** The run's private TMPDIR (the host's /tmp itself is not granted). */
  tmpDir: string;
  /** For tests: a folder's entries, or undefined when it cannot be read (then nothing in it is granted). */
  readdir?: (dir: string) => Array<{ name: string; kind: 'dir' | 'file' | 'symlink' }> | undefined;
}

type Layer = { kind: 'ro' | 'rw' | 'dev' | 'hide'; path: string };

const RANK = { hide: 0, ro: 1, dev: 1, rw: 2 } as const;

function defaultReaddir(dir: string): Array<{ name: string; kind: 'dir' | 'file' | 'symlink' }> | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  return entries.map((e) => ({ name: e.name, kind: e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'dir' : 'file' }));
}

const beneath = (p: string, dir: string): boolean => dir === '/' ? p !== '/' : p.startsWith(`${dir}/`);

export function landlockRules(input: LandlockRulesInput): LandlockRule[] {
  const readdir = input.readdir ?? defaultReaddir;
  // Shallowest first, later wins (the mount plan's own order, mount-plan.ts): the system read-only,
  // the host's /tmp and /dev not at all (a private TMPDIR and a few device files instead).
  const layers: Layer[] = [
    { kind: 'ro', path: '/' },
    { kind: 'hide', path: '/tmp' },
    { kind: 'hide', path: '/dev' },
    ...input.rules.map((r): Layer => ({ kind: r.kind === 'write' ? 'rw' : r.kind === 'read' ? 'ro' : 'hide', path: r.path })),
    ...LANDLOCK_DEVICES.map((p): Layer => ({ kind: 'dev', path: p })),
    { kind: 'rw', path: input.tmpDir },
  ];
  const out: LandlockRule[] = [];
  layers.forEach((layer, i) => {
    if (layer.kind === 'hide') return;
    const later = layers.slice(i + 1);
    // The same path again later: that layer decides it.
    if (later.some((l) => l.path === layer.path)) return;
    const reducing = later.filter((l) => RANK[l.kind] < RANK[layer.kind] && beneath(l.path, layer.path));
    const emit = (dir: string): void => {
      if (!reducing.some((l) => beneath(l.path, dir))) {
        out.push({ kind: layer.kind as LandlockRule['kind'], path: dir });
        return;
      }
      for (const entry of readdir(dir) ?? []) {
        if (entry.kind === 'symlink') continue;
        const child = path.join(dir, entry.name);
        // A later layer at this very path decides it (and is emitted, or hidden, on its own).
        if (later.some((l) => l.path === child)) continue;
        if (entry.kind === 'dir') emit(child);
        else out.push({ kind: layer.kind as LandlockRule['kind'], path: child });
      }
    };
    emit(layer.path);
  });
  return out;
}

/** The launcher's arguments for these rules. */
export function landlockRuleArgs(rules: LandlockRule[]): string[] {
  return rules.flatMap((r) => [`--${r.kind}`, r.path]);
}
