// The container kind's confinement: the flags Gatehouse adds for the profile's sandbox, and
// the options it refuses because they would undo them (each one tried).
import { describe, expect, it } from 'vitest';
import { STRICT_DEFAULT, type SandboxSpec } from './types';
import { ContainerRefused, containerArgs, dockerEngineProblem, isDockerRun, parseDockerRun } from './container';

const WS = '/home/alice/project';
const allowed = (p: string) => (p === WS || p.startsWith(`${WS}/`) ? 'rw' : p.startsWith('/data/ro') ? 'ro' : undefined) as 'rw' | 'ro' | undefined;
const parse = (args: string[]) => parseDockerRun(['run', ...args], allowed, '/home/alice');

describe('docker run under the container kind', () => {
  it('recognises docker run and docker container run only', () => {
    expect(isDockerRun('/usr/bin/docker', ['run', 'img'])).toBe(true);
    expect(isDockerRun('docker', ['container', 'run', 'img'])).toBe(true);
    expect(isDockerRun('docker', ['exec', 'x'])).toBe(false);
    expect(isDockerRun('node', ['run'])).toBe(false);
  });

  it('adds no network, a read-only root, no capabilities, the limits, the workspace mount and only the declared env', () => {
    const run = parse(['-i', '--rm', '-e', 'GITHUB_TOKEN', '--network', 'host', 'ghcr.io/github/github-mcp-server', 'stdio']);
    const spec: SandboxSpec = { ...STRICT_DEFAULT, limits: { processes: 64, memoryBytes: 512 * 1024 ** 2 } };
    const plan = containerArgs(run, spec, { workspace: WS, cwd: WS, env: { GITHUB_TOKEN: 't', EXTRA: 'x', PATH: '/usr/bin' } });
    const a = plan.args.join(' ');
    expect(a).toMatch(/^run --rm -i --network none --read-only --tmpfs \/tmp --cap-drop ALL --security-opt no-new-privileges --pids-limit 64 --memory 536870912 /);
    expect(a).toContain(`-v ${WS}:${WS}`);
    expect(a).toContain(`-w ${WS}`);
    // The config's --network host is replaced by the profile's; GITHUB_TOKEN passed once; EXTRA added; PATH not.
    expect(a).not.toContain('host');
    expect(plan.args.filter((x) => x === 'GITHUB_TOKEN')).toHaveLength(1);
    expect(a).toContain('-e EXTRA');
    expect(a).not.toContain('-e PATH');
    expect(a.endsWith('ghcr.io/github/github-mcp-server stdio')).toBe(true);
    expect(plan.summary).toBe('docker · 64 processes · 512 MiB');
  });

  it('says what it cannot enforce for an allow-list network', () => {
    const plan = containerArgs(parse(['img']), { ...STRICT_DEFAULT, network: { kind: 'allow', hosts: ['api.github.com'] } }, { workspace: WS, cwd: WS, env: {} });
    expect(plan.args).toContain('bridge');
    expect(plan.unenforced.join()).toMatch(/not only api.github.com/);
  });

  it.each([
    [['--privileged', 'img'], /whole machine/],
    [['--cap-add', 'SYS_ADMIN', 'img'], /no capabilities/],
    [['--pid=host', 'img'], /host's namespaces/],
    [['--device', '/dev/kvm', 'img'], /device/],
    [['-v', '/var/run/docker.sock:/var/run/docker.sock', 'img'], /engine's socket/],
    [['--mount', 'type=bind,source=/run/docker.sock,target=/s', 'img'], /engine's socket/],
    [['-v', '/etc:/host-etc', 'img'], /not the workspace or a grant/],
    [['-v', '~/.ssh:/root/.ssh', 'img'], /\/home\/alice\/.ssh is not the workspace/],
    [['--security-opt', 'seccomp=unconfined', 'img'], /seccomp/],
    [['--volumes-from', 'other', 'img'], /volumes/],
    [['--rm'], /names no image/],
  ])('refuses %j', (args, why) => {
    expect(() => parse(args)).toThrow(ContainerRefused);
    expect(() => parse(args)).toThrow(why);
  });

  it('keeps mounts of the workspace, grants and named volumes', () => {
    const run = parse(['-v', `${WS}/data:/data`, '-v', '/data/ro/x:/x:ro', '-v', 'cache:/cache', '-it', 'img']);
    expect(run.options).toEqual(['-v', `${WS}/data:/data`, '-v', '/data/ro/x:/x:ro', '-v', 'cache:/cache']);
  });

  it('names a missing engine in one line', () => {
    expect(dockerEngineProblem({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' })).toBe('no Docker engine is running here (/nonexistent/docker.sock does not exist)');
    expect(dockerEngineProblem({ DOCKER_HOST: 'tcp://10.0.0.1:2376' })).toBeUndefined();
  });
});
