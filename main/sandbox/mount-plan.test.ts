import { describe, expect, it } from 'vitest';
import type { Stats } from 'node:fs';
import { mountPlan, SandboxConfigError } from './mount-plan';
import { bwrapArgs, SANDBOX_SOCKET_DIR } from './bwrap-args';
import { seatbeltProfile } from './seatbelt-profile';
import { STRICT_DEFAULT, summarizeSandbox, type SandboxSpec } from './types';

// A fake file system: the paths that exist, and which are folders.
function fs(dirs: string[], files: string[] = []) {
  const set = new Map<string, 'dir' | 'file'>([...dirs.map((d) => [d, 'dir'] as const), ...files.map((f) => [f, 'file'] as const)]);
  return {
    stat: (p: string) => {
      const t = set.get(p);
      return t ? ({ isDirectory: () => t === 'dir' } as Stats) : undefined;
    },
    realpath: (p: string) => p,
  };
}

const ctx = (extra: Partial<Parameters<typeof mountPlan>[1]> = {}) => ({
  workspace: '/home/ada/proj',
  dataDir: '/home/ada/.local/state/gatehouse',
  home: '/home/ada',
  env: {},
  ...fs(['/home/ada', '/home/ada/proj', '/home/ada/.ssh', '/home/ada/.local/state/gatehouse', '/home/ada/.local/state/gatehouse/memory', '/home/ada/.claude'], ['/home/ada/.netrc', '/home/ada/.claude.json']),
  ...extra,
});

const spec = (s: Partial<SandboxSpec>): SandboxSpec => ({ ...STRICT_DEFAULT, ...s });

describe('mountPlan', () => {
  it('hides home (and with it credentials and the data dir inside it); the workspace is writable', () => {
    // Hides inside the hidden home are left out: their empty mount points would name them.
    expect(mountPlan(STRICT_DEFAULT, ctx())).toEqual([
      { kind: 'hide', path: '/home/ada', type: 'dir' },
      { kind: 'write', path: '/home/ada/proj' },
    ]);
  });

  it('under a grant of ~ the named paths are hidden one by one, deeper rules later', () => {
    expect(mountPlan(spec({ read: ['/home/ada'] }), ctx())).toEqual([
      { kind: 'read', path: '/home/ada' },
      { kind: 'hide', path: '/home/ada/.ssh', type: 'dir' },
      { kind: 'hide', path: '/home/ada/.netrc', type: 'file' },
      { kind: 'hide', path: '/home/ada/.claude', type: 'dir' },
      { kind: 'hide', path: '/home/ada/.claude.json', type: 'file' },
      { kind: 'write', path: '/home/ada/proj' },
      { kind: 'hide', path: '/home/ada/.local/state/gatehouse', type: 'dir' },
    ]);
  });

  it('a grant of ~ still leaves ~/.ssh and the data dir hidden (they come after it)', () => {
    const rules = mountPlan(spec({ write: ['/home/ada'] }), ctx());
    const order = rules.map((r) => `${r.kind}:${r.path}`);
    expect(order.indexOf('write:/home/ada')).toBeLessThan(order.indexOf('hide:/home/ada/.ssh'));
    expect(order.indexOf('write:/home/ada')).toBeLessThan(order.indexOf('hide:/home/ada/.local/state/gatehouse'));
    expect(order).not.toContain('hide:/home/ada');
  });

  it('an explicit grant of a hidden folder wins at the same path; a folder inside the data dir can be granted', () => {
    // Under a grant of ~, so the data dir's own hide is not left out as covered by the home's.
    const rules = mountPlan(spec({ write: ['/home/ada/.claude', '/home/ada/.local/state/gatehouse/memory'], read: ['/home/ada', '/home/ada/.ssh'] }), ctx());
    const order = rules.map((r) => `${r.kind}:${r.path}`);
    expect(order).not.toContain('hide:/home/ada/.claude');
    expect(order).not.toContain('hide:/home/ada/.ssh');
    expect(order).toContain('read:/home/ada/.ssh');
    expect(order).toContain('hide:/home/ada/.local/state/gatehouse');
    expect(order.indexOf('hide:/home/ada/.local/state/gatehouse')).toBeLessThan(order.indexOf('write:/home/ada/.local/state/gatehouse/memory'));
  });

  it('the data directory itself can never be granted', () => {
    expect(() => mountPlan(spec({ read: ['/home/ada/.local/state/gatehouse'] }), ctx())).toThrow(SandboxConfigError);
    expect(() => mountPlan(spec({ write: ['/home/ada/.local/state/gatehouse'] }), ctx())).toThrow(/cannot be granted/);
  });

  it('write beats read at the same path; missing grants are skipped, a missing workspace is an error', () => {
    const rules = mountPlan(spec({ read: ['/home/ada/proj', '/nope'] }), ctx());
    expect(rules.filter((r) => r.path === '/home/ada/proj')).toEqual([{ kind: 'write', path: '/home/ada/proj' }]);
    expect(rules.some((r) => r.path === '/nope')).toBe(false);
    expect(() => mountPlan(STRICT_DEFAULT, ctx({ workspace: '/gone' }))).toThrow(/\/gone does not exist/);
  });

  it('XDG and Gatehouse overrides are hidden wherever they point', () => {
    const c = ctx({ env: { XDG_CONFIG_HOME: '/cfg', GATEHOUSE_PROFILES_DIR: '/profiles' }, ...fs(['/home/ada/proj', '/cfg/gatehouse', '/profiles']) });
    expect(mountPlan(STRICT_DEFAULT, c).filter((r) => r.kind === 'hide').map((r) => r.path)).toEqual(['/profiles', '/cfg/gatehouse']);
  });
});

describe('mountPlan: protected paths beat grants (docs/security.md "The files that decide what runs")', () => {
  const files = (extra: string[] = [], dirs: string[] = []) =>
    fs(['/home/ada', '/home/ada/proj', '/home/ada/proj/profiles', '/home/ada/proj/profiles/sub', '/home/ada/.config/gatehouse', '/home/ada/.config/gatehouse/profiles', ...dirs], ['/home/ada/proj/gatehouse.yaml', ...extra]);

  it('a protected file inside the writable workspace gets a read-only rule after the grant', () => {
    const rules = mountPlan(STRICT_DEFAULT, ctx({ ...files(), protectedRead: ['/home/ada/proj/gatehouse.yaml', '/nope.yaml'] }));
    const order = rules.map((r) => `${r.kind}:${r.path}`);
    expect(rules).toContainEqual({ kind: 'read', path: '/home/ada/proj/gatehouse.yaml', protected: true });
    expect(order.indexOf('write:/home/ada/proj')).toBeLessThan(order.indexOf('read:/home/ada/proj/gatehouse.yaml'));
    expect(order.some((r) => r.endsWith('/nope.yaml'))).toBe(false);
  });

  it('a write grant at or inside a protected folder becomes read-only (a profiles folder used as the workspace)', () => {
    const rules = mountPlan(spec({ write: ['/home/ada/proj/profiles/sub'] }), ctx({ ...files(), workspace: '/home/ada/proj/profiles', protectedRead: ['/home/ada/proj/profiles'] }));
    expect(rules.filter((r) => r.kind !== 'hide')).toEqual([
      { kind: 'read', path: '/home/ada/proj/profiles', protected: true },
      { kind: 'read', path: '/home/ada/proj/profiles/sub' },
    ]);
  });

  it('a protected path that no write grant covers adds nothing (hidden stays hidden, read-only stays so)', () => {
    const rules = mountPlan(STRICT_DEFAULT, ctx({ ...files(), protectedRead: ['/home/ada/.config/gatehouse/profiles', '/usr/bin/node'] }));
    expect(rules.some((r) => r.path === '/home/ada/.config/gatehouse/profiles')).toBe(false);
    // …even under a write grant of ~ the hidden ~/.config/gatehouse covers it first.
    const underHome = mountPlan(spec({ write: ['/home/ada'] }), ctx({ ...files(), protectedRead: ['/home/ada/.config/gatehouse/profiles'] }));
    expect(underHome.some((r) => r.path === '/home/ada/.config/gatehouse/profiles')).toBe(false);
    expect(underHome).toContainEqual({ kind: 'hide', path: '/home/ada/.config/gatehouse', type: 'dir' });
  });

  it('bwrap binds the protected path read-only after the writable workspace, and seatbelt denies writes under it', () => {
    const rules = mountPlan(STRICT_DEFAULT, ctx({ ...files(), protectedRead: ['/home/ada/proj/gatehouse.yaml'] }));
    const args = bwrapArgs({ rules, cwd: '/home/ada/proj', disableUserns: true, command: 'x', args: [] }).join(' ');
    expect(args.indexOf('--bind /home/ada/proj /home/ada/proj')).toBeLessThan(args.indexOf('--ro-bind /home/ada/proj/gatehouse.yaml /home/ada/proj/gatehouse.yaml'));
    expect(args).toContain('--ro-bind /home/ada/proj/gatehouse.yaml /home/ada/proj/gatehouse.yaml');
    const sbpl = seatbeltProfile({ rules, network: { kind: 'none' }, loopbackPorts: [], tmpDir: '/t' });
    expect(sbpl.indexOf('(deny file-write* (subpath "/home/ada/proj/gatehouse.yaml"))')).toBeGreaterThan(sbpl.indexOf('(allow file-read* file-write* (subpath "/home/ada/proj"))'));
  });
});

describe('bwrapArgs', () => {
  it('namespaces, caps, die-with-parent, read-only root, private /tmp /dev /proc; hides made read-only last', () => {
    const argv = bwrapArgs({ rules: mountPlan(STRICT_DEFAULT, ctx()), cwd: '/home/ada/proj', disableUserns: true, command: '/usr/bin/node', args: ['server.js'], socketDir: '/tmp/gatehouse-sbx-1' });
    expect(argv.slice(0, 9)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--hostname', 'gatehouse-sandbox']);
    const joined = argv.join(' ');
    expect(joined).toContain('--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /dev/shm');
    expect(joined).toContain('--perms 0700 --tmpfs /home/ada --bind /home/ada/proj');
    expect(joined).toContain('--bind /home/ada/proj /home/ada/proj');
    expect(joined).toContain(`--ro-bind /tmp/gatehouse-sbx-1 ${SANDBOX_SOCKET_DIR}`);
    // Every hidden folder is remounted read-only after every mount inside it exists.
    const lastBind = argv.lastIndexOf('--bind');
    const remounted = argv.flatMap((a, i) => (a === '--remount-ro' && i > lastBind ? [argv[i + 1]] : []));
    expect(remounted).toEqual(['/home/ada']);
    expect(argv.slice(-5)).toEqual(['--chdir', '/home/ada/proj', '--', '/usr/bin/node', 'server.js']);
    expect(joined).not.toContain('--share-net');
  });
});

describe('summarizeSandbox', () => {
  it('one line for people, and off says unconfined', () => {
    expect(summarizeSandbox(STRICT_DEFAULT)).toEqual({ mode: 'strict', network: 'none', summary: 'strict · network none · writes workspace only' });
    expect(summarizeSandbox(spec({ network: { kind: 'allow', hosts: ['a.example'] }, hostPorts: [8080], write: ['/x'] })).summary).toBe(
      'strict · network allow (a.example) · host ports 8080 · writes workspace + 1 path',
    );
    expect(summarizeSandbox(spec({ mode: 'off' }))).toMatchObject({ mode: 'off', network: 'host' });
  });
});
