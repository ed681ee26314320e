import { describe, expect, it } from 'vitest';
import { landlockRuleArgs, landlockRules, LANDLOCK_DEVICES } from './landlock-rules';
import type { MountRule } from './mount-plan';

// A small file system: what readdir would say for each folder.
const TREE: Record<string, Array<{ name: string; kind: 'dir' | 'file' | 'symlink' }>> = {
  '/': [
    { name: 'usr', kind: 'dir' },
    { name: 'etc', kind: 'dir' },
    { name: 'lib', kind: 'symlink' },
    { name: 'home', kind: 'dir' },
    { name: 'tmp', kind: 'dir' },
    { name: 'dev', kind: 'dir' },
    { name: 'run', kind: 'dir' },
    { name: 'vmlinuz', kind: 'file' },
  ],
  '/home': [
    { name: 'me', kind: 'dir' },
    { name: 'other', kind: 'dir' },
  ],
  '/home/me': [
    { name: '.ssh', kind: 'dir' },
    { name: 'proj', kind: 'dir' },
    { name: 'notes.txt', kind: 'file' },
    { name: 'link-to-ssh', kind: 'symlink' },
  ],
  '/home/me/proj': [
    { name: 'src', kind: 'dir' },
    { name: 'gatehouse.yaml', kind: 'file' },
  ],
  '/run': [
    { name: 'dbus', kind: 'dir' },
    { name: 'lock', kind: 'dir' },
  ],
};
const readdir = (dir: string) => TREE[dir];
const TMP = '/tmp/gatehouse-ll-tmp-x';

const hidden: MountRule[] = [
  { kind: 'hide', path: '/home/me', type: 'dir' },
  { kind: 'hide', path: '/run/dbus', type: 'dir' },
];

describe('landlockRules: the mount plan as Landlock rules', () => {
  it('grants the system read-only around hidden paths, never the hidden paths, /tmp or /dev', () => {
    const rules = landlockRules({ rules: [...hidden, { kind: 'write', path: '/home/me/proj' }], tmpDir: TMP, readdir });
    const ro = rules.filter((r) => r.kind === 'ro').map((r) => r.path);
    expect(ro).toEqual(['/usr', '/etc', '/home/other', '/run/lock', '/vmlinuz']);
    // Symlinks get no rule: Landlock checks what they resolve to (/lib -> usr/lib is /usr's).
    expect(rules.some((r) => r.path === '/lib' || r.path.endsWith('link-to-ssh'))).toBe(false);
    for (const p of ['/', '/home', '/home/me', '/home/me/.ssh', '/run', '/run/dbus', '/tmp', '/dev']) expect(rules.some((r) => r.path === p)).toBe(false);
    expect(rules.filter((r) => r.kind === 'rw').map((r) => r.path)).toEqual(['/home/me/proj', TMP]);
    expect(rules.filter((r) => r.kind === 'dev').map((r) => r.path)).toEqual(LANDLOCK_DEVICES);
  });

  it('a read-only path inside a writable grant: the grant is split around it', () => {
    const rules = landlockRules({
      rules: [...hidden, { kind: 'write', path: '/home/me/proj' }, { kind: 'read', path: '/home/me/proj/gatehouse.yaml' }],
      tmpDir: TMP,
      readdir,
    });
    const inProj = rules.filter((r) => r.path.startsWith('/home/me/proj'));
    expect(inProj).toEqual([
      { kind: 'rw', path: '/home/me/proj/src' },
      { kind: 'ro', path: '/home/me/proj/gatehouse.yaml' },
    ]);
  });

  it('a hidden path inside a writable grant of ~ stays out; the rest of ~ is writable', () => {
    const rules = landlockRules({ rules: [{ kind: 'write', path: '/home/me' }, { kind: 'hide', path: '/home/me/.ssh', type: 'dir' }], tmpDir: TMP, readdir });
    const inHome = rules.filter((r) => r.path.startsWith('/home/me'));
    expect(inHome).toEqual([
      { kind: 'rw', path: '/home/me/proj' },
      { kind: 'rw', path: '/home/me/notes.txt' },
    ]);
  });

  it('a grant inside a hidden folder is granted on its own (the data dir\'s memory folder)', () => {
    const rules = landlockRules({ rules: [...hidden, { kind: 'hide', path: '/home/me/.local/state/gatehouse', type: 'dir' }, { kind: 'write', path: '/home/me/.local/state/gatehouse/memory' }], tmpDir: TMP, readdir });
    expect(rules).toContainEqual({ kind: 'rw', path: '/home/me/.local/state/gatehouse/memory' });
    expect(rules.some((r) => r.path === '/home/me/.local/state/gatehouse')).toBe(false);
  });

  it('a folder that cannot be read grants nothing inside it (fails closed)', () => {
    const rules = landlockRules({ rules: [{ kind: 'hide', path: '/home/me', type: 'dir' }], tmpDir: TMP, readdir: (d) => (d === '/home' ? undefined : TREE[d]) });
    expect(rules.some((r) => r.path.startsWith('/home'))).toBe(false);
  });

  it('becomes launcher arguments, one flag per rule', () => {
    expect(landlockRuleArgs([{ kind: 'ro', path: '/usr' }, { kind: 'rw', path: '/w' }, { kind: 'dev', path: '/dev/null' }])).toEqual(['--ro', '/usr', '--rw', '/w', '--dev', '/dev/null']);
  });
});
