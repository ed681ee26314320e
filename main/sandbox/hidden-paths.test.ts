// The hidden list as the mount plan uses it, on a fake file system: /run as an allowlist, the
// passwd home hidden beside $HOME, the socket folders under /var. The same cases run for real
// (bwrap, listening sockets) in tests/integration/sandbox-sockets.test.ts.
import { describe, expect, it } from 'vitest';
import { readFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { HIDDEN_ABSOLUTE_PATHS, HIDDEN_RUN_NAMES, HIDDEN_VAR_PATHS, hiddenPaths, runAllowlist } from './hidden-paths';
import { mountPlan } from './mount-plan';
import { bwrapArgs } from './bwrap-args';
import { seatbeltProfile } from './seatbelt-profile';
import { STRICT_DEFAULT, type SandboxSpec } from './types';

// Paths that exist (folders, files) and symlinks (resolved by realpath, as the kernel would).
function fakeFs(dirs: string[], files: string[] = [], links: Record<string, string> = {}) {
  const kinds = new Map<string, 'dir' | 'file'>([...dirs.map((d) => [d, 'dir'] as const), ...files.map((f) => [f, 'file'] as const)]);
  const realpath = (p: string): string => {
    for (const [from, to] of Object.entries(links)) if (p === from || p.startsWith(`${from}/`)) return realpath(to + p.slice(from.length));
    return p;
  };
  return {
    stat: (p: string) => {
      const t = kinds.get(realpath(p));
      return t ? ({ isDirectory: () => t === 'dir', isFile: () => t === 'file' } as Stats) : undefined;
    },
    realpath,
  };
}

const spec = (s: Partial<SandboxSpec> = {}): SandboxSpec => ({ ...STRICT_DEFAULT, ...s });
const ubuntu = (extraDirs: string[] = [], extraFiles: string[] = []) =>
  fakeFs(
    ['/home/ada', '/home/ada/proj', '/root', '/root/.ssh', '/run', '/run/docker.sock', '/run/systemd', '/run/systemd/resolve', '/run/user', '/run/postgresql', '/var/lib/mysql', '/var/lib/lxd', ...extraDirs],
    ['/run/systemd/resolve/stub-resolv.conf', '/root/.npmrc', ...extraFiles],
    { '/var/run': '/run', '/etc/resolv.conf': '/run/systemd/resolve/stub-resolv.conf' },
  );
const ctx = (fs: ReturnType<typeof fakeFs>, passwdHome = '/root') => ({ workspace: '/home/ada/proj', dataDir: '/home/ada/.local/state/gatehouse', home: '/home/ada', env: {}, passwdHome, ...fs });

describe('hiddenPaths', () => {
  it('hides the passwd home with the same named paths as $HOME when they differ', () => {
    const paths = hiddenPaths({ home: '/var/tmp/h', dataDir: '/d', env: {}, passwdHome: '/root' });
    for (const p of ['/var/tmp/h', '/var/tmp/h/.ssh', '/root', '/root/.ssh', '/root/.npmrc', '/root/.claude']) expect(paths).toContain(p);
  });

  it('one home when they are the same; never `/` itself', () => {
    const paths = hiddenPaths({ home: '/home/ada', dataDir: '/d', env: {}, passwdHome: '/home/ada/' });
    expect(paths.filter((p) => p === '/home/ada')).toHaveLength(1);
    const rooted = hiddenPaths({ home: '/home/ada', dataDir: '/d', env: {}, passwdHome: '/' });
    expect(rooted).not.toContain('/');
    expect(rooted).toContain('/.ssh');
  });

  it('/run and /var/run whole, the sockets under /var by folder, and the named /run entries for a grant of /run', () => {
    for (const p of ['/run', '/var/run', '/run/docker.sock', '/var/run/docker.sock', '/run/systemd', '/run/nscd', '/run/user', '/var/lib/mysql', '/var/lib/lxd', '/var/snap/lxd/common/lxd', '/var/lib/incus', '/var/lib/libvirt', '/var/lib/tailscale']) {
      expect(HIDDEN_ABSOLUTE_PATHS).toContain(p);
    }
  });
});

describe('docs/sandbox.md prints the same list', () => {
  const docs = readFileSync(path.join(__dirname, '..', '..', 'docs', 'sandbox.md'), 'utf8');
  // `/var/lib/{a,b}` in the docs stands for /var/lib/a and /var/lib/b.
  const printed = new Set(
    [...docs.matchAll(/`([^`\s]+)`/g)].flatMap(([, t]) => {
      const m = /^(.*)\{([^}]+)\}(.*)$/.exec(t!);
      return m ? m[2]!.split(',').map((x) => `${m[1]}${x}${m[3]}`) : [t!];
    }),
  );
  it('every socket folder under /var and every name hidden under a grant of /run', () => {
    for (const p of HIDDEN_VAR_PATHS) expect(printed, p).toContain(p);
    for (const n of HIDDEN_RUN_NAMES) expect(printed, n).toContain(n);
  });
});

describe('runAllowlist', () => {
  it("brings back resolv.conf's target under /run for a sandbox with a network, nothing under network none", () => {
    expect(runAllowlist('allow', ubuntu())).toEqual(['/run/systemd/resolve/stub-resolv.conf']);
    expect(runAllowlist('loopback', ubuntu())).toEqual(['/run/systemd/resolve/stub-resolv.conf']);
    expect(runAllowlist('none', ubuntu())).toEqual([]);
  });

  it('nothing when resolv.conf is a plain file in /etc, or points at something that is not a file', () => {
    expect(runAllowlist('allow', fakeFs(['/run'], ['/etc/resolv.conf']))).toEqual([]);
    expect(runAllowlist('allow', fakeFs(['/run', '/run/x'], [], { '/etc/resolv.conf': '/run/x' }))).toEqual([]);
    expect(runAllowlist('allow', fakeFs(['/run'], [], { '/etc/resolv.conf': '/run/gone' }))).toEqual([]);
  });
});

describe('the mount plan with /run hidden', () => {
  it('hides /run once (/var/run is the same folder) and none of the names inside it, the passwd home too', () => {
    const rules = mountPlan(STRICT_DEFAULT, ctx(ubuntu()));
    expect(rules).toEqual([
      { kind: 'hide', path: '/root', type: 'dir' },
      { kind: 'hide', path: '/run', type: 'dir' },
      { kind: 'hide', path: '/home/ada', type: 'dir' },
      { kind: 'hide', path: '/var/lib/mysql', type: 'dir' },
      { kind: 'hide', path: '/var/lib/lxd', type: 'dir' },
      { kind: 'write', path: '/home/ada/proj' },
    ]);
  });

  it('a grant inside /run comes back after the tmpfs; resolv.conf only with a network', () => {
    const rules = mountPlan(spec({ read: ['/var/run/postgresql'], network: { kind: 'allow', hosts: ['x.example'] } }), ctx(ubuntu()));
    const order = rules.map((r) => `${r.kind}:${r.path}`);
    expect(order).toContain('hide:/run');
    expect(order.indexOf('hide:/run')).toBeLessThan(order.indexOf('read:/run/postgresql'));
    expect(order.indexOf('hide:/run')).toBeLessThan(order.indexOf('read:/run/systemd/resolve/stub-resolv.conf'));
    expect(order).not.toContain('hide:/run/systemd');
  });

  it('a grant of /run itself keeps the named sockets and folders hidden', () => {
    const order = mountPlan(spec({ read: ['/run'] }), ctx(ubuntu())).map((r) => `${r.kind}:${r.path}`);
    expect(order).toContain('read:/run');
    for (const p of ['/run/docker.sock', '/run/systemd', '/run/user', '/run/postgresql']) expect(order).toContain(`hide:${p}`);
  });

  it('where /var/run is a folder of its own, it is hidden too', () => {
    const fs = fakeFs(['/home/ada', '/home/ada/proj', '/run', '/var/run', '/var/run/docker.sock']);
    const hides = mountPlan(STRICT_DEFAULT, ctx(fs)).filter((r) => r.kind === 'hide').map((r) => r.path);
    expect(hides).toEqual(['/run', '/home/ada', '/var/run']);
  });

  it('bwrap: an empty read-only /run with only the allowlist bound into it', () => {
    const rules = mountPlan(spec({ network: { kind: 'loopback' } }), ctx(ubuntu()));
    const argv = bwrapArgs({ rules, cwd: '/home/ada/proj', disableUserns: true, command: '/usr/bin/node', args: [] });
    const joined = argv.join(' ');
    expect(joined).toContain('--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /dev/shm --perms 0700 --tmpfs /root --perms 0700 --tmpfs /run --perms 0700');
    expect(joined).toContain('--ro-bind /run/systemd/resolve/stub-resolv.conf /run/systemd/resolve/stub-resolv.conf');
    expect(joined).not.toContain('/run/docker.sock');
    expect(joined).toContain('--remount-ro /run');
  });

  it('seatbelt (macOS): the same plan as deny rules, /var/run by its real path', () => {
    const mac = fakeFs(['/Users/ada', '/Users/ada/proj', '/private/var/run', '/private/var/run/mDNSResponder'], ['/private/var/run/resolv.conf'], { '/var': '/private/var', '/etc': '/private/etc', '/private/etc/resolv.conf': '/private/var/run/resolv.conf' });
    const rules = mountPlan(spec({ network: { kind: 'loopback' } }), { workspace: '/Users/ada/proj', dataDir: '/Users/ada/Library/Application Support/Gatehouse', home: '/Users/ada', env: {}, passwdHome: '/Users/ada', ...mac });
    const text = seatbeltProfile({ rules, network: { kind: 'loopback' }, loopbackPorts: [], tmpDir: '/private/tmp/t' });
    const lines = text.split('\n');
    expect(lines).toContain('(deny file-read* file-write* (subpath "/private/var/run"))');
    expect(lines.indexOf('(allow file-read* (subpath "/private/var/run/resolv.conf"))')).toBeGreaterThan(lines.indexOf('(deny file-read* file-write* (subpath "/private/var/run"))'));
  });
});
