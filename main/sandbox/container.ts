// The `container` sandbox kind (docs/sandbox.md "Sandbox kinds"): a server whose command is
// `docker run … IMAGE …` runs as a container under Gatehouse's confinement flags instead of
// in bubblewrap (the docker client needs the engine's socket, which no other sandbox ever
// sees). Gatehouse adds what the profile's sandbox means in docker's terms: no network unless
// granted, a read-only root file system, the workspace and the grants as the only mounts, the
// process and memory limits, no capabilities, no new privileges, only the declared env. Options
// that would undo that (`--privileged`, host namespaces, added capabilities, devices, the
// engine's socket, mounts outside the workspace and grants) are refused with one line.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SandboxSpec } from './types';

/** `docker run` options that take a value (so it is not taken for the image). */
const TAKES_VALUE = new Set([
  '-a', '--attach', '--add-host', '--annotation', '--blkio-weight', '--cgroup-parent', '--cgroupns', '--cidfile', '--cpu-period', '--cpu-quota', '--cpu-shares', '-c', '--cpus', '--cpuset-cpus', '--cpuset-mems',
  '--detach-keys', '--device', '--device-cgroup-rule', '--dns', '--dns-option', '--dns-search', '--domainname', '--entrypoint', '-e', '--env', '--env-file', '--expose', '--gpus', '--group-add', '--health-cmd',
  '--health-interval', '--health-retries', '--health-start-period', '--health-timeout', '-h', '--hostname', '--ip', '--ip6', '--ipc', '--isolation', '-l', '--label', '--label-file', '--link', '--log-driver',
  '--log-opt', '--mac-address', '-m', '--memory', '--memory-reservation', '--memory-swap', '--memory-swappiness', '--mount', '--name', '--network', '--net', '--network-alias', '--pid', '--pids-limit', '--platform',
  '-p', '--publish', '--pull', '--restart', '--runtime', '--security-opt', '--shm-size', '--stop-signal', '--stop-timeout', '--storage-opt', '--sysctl', '--tmpfs', '--ulimit', '-u', '--user', '--userns', '--uts',
  '-v', '--volume', '--volumes-from', '-w', '--workdir', '--cap-add', '--cap-drop',
]);

/** Options Gatehouse sets itself: the profile's, not the config's, decide them. */
const REPLACED = new Set(['--network', '--net', '--pids-limit', '-m', '--memory', '--memory-swap', '--read-only', '--rm', '-i', '--interactive', '--cap-drop', '-d', '--detach', '-t', '--tty']);

export interface DockerRun {
  /** The options as written, minus the ones Gatehouse sets. */
  options: string[];
  image: string;
  command: string[];
}

export function isDockerRun(command: string, args: readonly string[]): boolean {
  return /^(docker|podman)(\.exe)?$/.test(path.basename(command)) && (args[0] === 'run' || (args[0] === 'container' && args[1] === 'run'));
}

export class ContainerRefused extends Error {}

/** Splits `run [OPTIONS] IMAGE [COMMAND…]`, refusing what would undo the confinement. */
export function parseDockerRun(args: readonly string[], allowed: (hostPath: string) => 'rw' | 'ro' | undefined, home: string): DockerRun {
  const list = args[0] === 'container' ? args.slice(2) : args.slice(1);
  const options: string[] = [];
  let i = 0;
  for (; i < list.length; i++) {
    const raw = list[i]!;
    if (!raw.startsWith('-') || raw === '-') break;
    const eq = raw.indexOf('=');
    const name = raw.startsWith('--') && eq > 0 ? raw.slice(0, eq) : raw;
    // `-it`, `-ti`, `-i`: clustered flags without values.
    const clustered = /^-[a-zA-Z]{2,}$/.test(raw) && !TAKES_VALUE.has(raw);
    let value: string | undefined;
    if (!clustered && TAKES_VALUE.has(name)) value = eq > 0 && raw.startsWith('--') ? raw.slice(eq + 1) : list[++i];
    refuseIfUnsafe(name, value, allowed, home);
    if (clustered) {
      const kept = [...raw.slice(1)].filter((c) => !'itd'.includes(c));
      if (kept.length) options.push(`-${kept.join('')}`);
      continue;
    }
    if (REPLACED.has(name)) continue;
    options.push(name, ...(value !== undefined ? [value] : []));
  }
  const image = list[i];
  if (!image) throw new ContainerRefused('docker run names no image');
  return { options, image, command: list.slice(i + 1) };
}

function refuseIfUnsafe(name: string, value: string | undefined, allowed: (hostPath: string) => 'rw' | 'ro' | undefined, home: string): void {
  const refuse = (why: string) => {
    throw new ContainerRefused(`docker run ${name}${value !== undefined ? ` ${value}` : ''} is refused: ${why}`);
  };
  if (name === '--privileged') refuse('it gives the container the whole machine');
  if (name === '--cap-add') refuse('the container runs with no capabilities');
  if (name === '--device' || name === '--gpus') refuse('no host device is passed to a server');
  if (['--pid', '--ipc', '--uts', '--userns', '--cgroupns'].includes(name) && value === 'host') refuse("the host's namespaces stay the host's");
  if ((name === '--network' || name === '--net') && value?.startsWith('container:')) refuse("another container's network is not the profile's");
  if (name === '--security-opt' && value && /unconfined|no-new-privileges[:=]false/.test(value)) refuse('the container keeps its seccomp and AppArmor profiles');
  if (name === '--volumes-from') refuse("another container's volumes are outside the profile's grants");
  if (name === '-v' || name === '--volume' || name === '--mount') {
    const source = mountSource(name, value ?? '');
    if (source === undefined) return; // a named volume or tmpfs: inside docker, not the host
    const abs = path.resolve(source.startsWith('~/') ? path.join(home, source.slice(2)) : source);
    if (/docker\.sock$|containerd\.sock$|podman\.sock$/.test(abs)) refuse("the engine's socket would give the server every container and the host");
    if (!allowed(abs)) refuse(`${abs} is not the workspace or a grant of this server (add it to sandbox.write or sandbox.read)`);
  }
}

/** The host path of a bind mount, or undefined for a named volume / tmpfs. */
function mountSource(name: string, value: string): string | undefined {
  if (name === '--mount') {
    const fields = Object.fromEntries(value.split(',').map((kv) => kv.split('=') as [string, string]));
    if (fields.type !== undefined && fields.type !== 'bind') return undefined;
    return fields.source ?? fields.src;
  }
  const source = value.split(':')[0] ?? '';
  return source.startsWith('/') || source.startsWith('~/') || source.startsWith('.') ? source : undefined;
}

export interface ContainerPlan {
  args: string[];
  unenforced: string[];
  summary: string;
}

/** The `docker run` argv with Gatehouse's confinement flags, for the profile's sandbox spec. */
export function containerArgs(run: DockerRun, spec: SandboxSpec, ctx: { workspace: string; cwd: string; env: Record<string, string> }): ContainerPlan {
  const limits = spec.limits ?? { processes: 256, memoryBytes: 2 * 1024 ** 3 };
  const unenforced: string[] = [];
  const network = spec.network.kind === 'none' ? 'none' : 'bridge';
  if (spec.network.kind === 'allow') unenforced.push(`network: the container has docker's bridge network, not only ${spec.network.hosts.join(', ')}`);
  if (spec.network.kind === 'loopback') unenforced.push("network: the container has docker's bridge network; the host's 127.0.0.1 ports are not forwarded in");
  const mounts = [
    '-v',
    `${ctx.workspace}:${ctx.workspace}`,
    ...spec.write.filter((p) => existsSync(p)).flatMap((p) => ['-v', `${p}:${p}`]),
    ...spec.read.filter((p) => existsSync(p)).flatMap((p) => ['-v', `${p}:${p}:ro`]),
  ];
  // Only the declared env reaches the container: `-e NAME` reads NAME from the docker client's
  // environment, which is the profile's env and nothing of the host's.
  const env = Object.keys(ctx.env)
    .filter((k) => !['PATH', 'HOME', 'TMPDIR', 'DOCKER_HOST', 'DOCKER_CONFIG', 'DOCKER_CONTEXT'].includes(k))
    .flatMap((k) => (run.options.some((o, i) => (o === '-e' || o === '--env') && (run.options[i + 1] === k || run.options[i + 1]?.startsWith(`${k}=`))) ? [] : ['-e', k]));
  const args = [
    'run',
    '--rm',
    '-i',
    '--network',
    network,
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--pids-limit',
    String(limits.processes),
    '--memory',
    String(limits.memoryBytes),
    ...(limits.cpuPercent !== undefined ? ['--cpus', String(limits.cpuPercent / 100)] : []),
    ...mounts,
    ...(run.options.includes('-w') || run.options.includes('--workdir') ? [] : ['-w', ctx.cwd]),
    ...env,
    ...run.options,
    run.image,
    ...run.command,
  ];
  const gib = limits.memoryBytes / 1024 ** 3;
  return { args, unenforced, summary: `docker · ${limits.processes} processes · ${Number.isInteger(gib) ? `${gib} GiB` : `${Math.round(limits.memoryBytes / 1024 ** 2)} MiB`}` };
}

/** Where the docker client will find the engine, or why it will not. */
export function dockerEngineProblem(env: NodeJS.ProcessEnv): string | undefined {
  const host = env.DOCKER_HOST;
  if (host && !host.startsWith('unix://')) return undefined; // tcp://, ssh://: the client says if it cannot reach it
  const socket = host ? host.slice('unix://'.length) : '/var/run/docker.sock';
  const rootless = env.XDG_RUNTIME_DIR ? path.join(env.XDG_RUNTIME_DIR, 'docker.sock') : undefined;
  if (existsSync(socket) || (!host && rootless && existsSync(rootless))) return undefined;
  return `no Docker engine is running here (${socket} does not exist)`;
}
