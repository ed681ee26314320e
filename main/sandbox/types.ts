// What a profile asks of the OS sandbox for one process (a server, the built-in tools, an agent
// terminal), after `${…}` expansion: absolute paths, one network mode. docs/sandbox.md says what
// each field means on each platform.
import type { z } from 'zod';
import type { SandboxKindSchema, SandboxSummarySchema } from '../../common/host-api-shapes';

/**
 * - `none`: the process has its own network namespace with only its own loopback; nothing of the
 *   host (not even the host's 127.0.0.1) and nothing outside.
 * - `loopback`: the same, plus the host's 127.0.0.1 ports in `hostPorts`, forwarded in at the same
 *   port number (how an agent reaches the gateway and nothing else on the host).
 * - `allow`: `loopback`, plus HTTP(S) to the listed hosts through Gatehouse's filtering proxy
 *   (HTTP_PROXY / HTTPS_PROXY inside the sandbox), with the allow-list semantics of http_request.
 */
export type SandboxNetwork = { kind: 'none' } | { kind: 'loopback' } | { kind: 'allow'; hosts: string[] };

/**
 * The kinds of sandbox one interface (prepareSandbox in sandbox-launch.ts) can give a process.
 * Each enforces the same grants and limits as far as it can and says what it could not
 * (`SandboxedCommand.unenforced`); none is ever chosen instead of the profile's `sandbox:`
 * without being reported (docs/sandbox.md "Sandbox kinds").
 * - `bubblewrap`: Linux, full (user, PID, IPC, UTS, network namespaces; mounts; seccomp).
 * - `landlock`: Linux where user namespaces are refused (Ubuntu ≥ 23.10's AppArmor): Landlock
 *   file and TCP rules + the same seccomp filter + rlimits + PR_SET_PDEATHSIG and group kill.
 *   Reduced: no PID/IPC isolation, no private /tmp.
 * - `seatbelt`: macOS `sandbox-exec`.
 * - `container`: a docker-based server run under Gatehouse's confinement flags.
 * - `off`: unconfined, only by an explicit `sandbox: off`.
 */
export type SandboxKind = z.infer<typeof SandboxKindSchema>;

/**
 * Caps on what one process tree may use (a server's or an agent's), whatever its sandbox kind.
 * Profile: `limits: { processes, memory, cpu }` per server and on `agent:`.
 */
export interface SandboxLimits {
  /** Most processes (threads count: the kernel's pids controller and RLIMIT_NPROC count tasks). */
  processes: number;
  /** Most memory in bytes (cgroup memory.max, or RLIMIT_AS where only rlimits apply). */
  memoryBytes: number;
  /** CPU as percent of one core (cgroup cpu.max); undefined: no CPU cap. */
  cpuPercent?: number;
}

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({ processes: 256, memoryBytes: 2 * 1024 ** 3 }) as SandboxLimits;

/**
 * How the limits of one run are enforced, best first: a cgroup v2 scope the user's systemd
 * delegates (`systemd-run --user --scope`), a cgroup Gatehouse may create itself (v2, or the v1
 * pids/memory controllers: root, as in CI), else rlimits set inside the sandbox (RLIMIT_NPROC is
 * counted per user namespace; RLIMIT_AS), else none (reported). `container`: docker's own
 * --pids-limit / --memory on the container (container.ts).
 */
export type LimitsMechanism = 'systemd-scope' | 'cgroup-v2' | 'cgroup-v1' | 'rlimit' | 'container' | 'none';

export interface SandboxSpec {
  /** `off` runs the process unconfined; only ever by an explicit `sandbox: off` in the profile. */
  mode: 'strict' | 'off';
  /** Absolute paths the process may write (besides the workspace, which is always writable). */
  write: string[];
  /** Absolute paths made visible read-only even where they would be hidden (e.g. `~/.gitconfig` under a hidden folder). */
  read: string[];
  network: SandboxNetwork;
  /** Host 127.0.0.1 ports reachable from inside (network `loopback` or `allow`). */
  hostPorts: number[];
  /** Resource caps; absent means DEFAULT_LIMITS (applied with `mode: 'off'` too). */
  limits?: SandboxLimits;
}

/** An agent's sandbox as the profile wrote it: no network means the preset's default. */
export type AgentSandboxSpec = Omit<SandboxSpec, 'network'> & { network?: SandboxNetwork };

/** The sandbox a status line reports (host API `ServerStatus.sandbox`), declared once in common/. */
export type SandboxSummary = z.infer<typeof SandboxSummarySchema>;

export const STRICT_DEFAULT: SandboxSpec = Object.freeze({
  mode: 'strict',
  write: [],
  read: [],
  network: { kind: 'none' },
  hostPorts: [],
}) as SandboxSpec;

/** 2 GiB, 512 MiB, 1536 KiB, 1000 B: the largest unit that divides the number exactly. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${n} B`;
}

/** The numbers of a limits line: ["256 processes", "2 GiB", "cpu 50%"] (limits.ts describeLimits joins them). */
export function limitParts(l: SandboxLimits): string[] {
  return [`${l.processes} processes`, formatBytes(l.memoryBytes), ...(l.cpuPercent !== undefined ? [`cpu ${l.cpuPercent}%`] : [])];
}

const networkWords = (n: SandboxNetwork, sep: string): string => `network${sep}${n.kind}${n.kind === 'allow' ? ` (${n.hosts.join(', ')})` : ''}`;

/** The status line: counts, short ("strict · network none · writes workspace + 1 path"). */
export function summarizeSandbox(spec: SandboxSpec): SandboxSummary {
  if (spec.mode === 'off') return { mode: 'off', network: 'host', summary: OFF_WORDS };
  const parts = ['strict', networkWords(spec.network, ' ')];
  if (spec.hostPorts.length) parts.push(`host ports ${spec.hostPorts.join(', ')}`);
  parts.push(spec.write.length ? `writes workspace + ${spec.write.length} path${spec.write.length === 1 ? '' : 's'}` : 'writes workspace only');
  return { mode: 'strict', network: spec.network.kind, summary: parts.join(' · ') };
}

const OFF_WORDS = 'off: runs unconfined (sandbox: off in the profile)';

/**
 * What a person approves on a launch review card (main/trust/identity.ts): the same words as the
 * status line, every path written out (a changed path must show), and the limits. `kind` is what
 * this machine would run it in (not part of the identity: the same profile on another machine is
 * the same launch).
 */
export function describeSandbox(spec: SandboxSpec, kind?: SandboxKind): string {
  const limits = `limits: ${limitParts(spec.limits ?? DEFAULT_LIMITS).join(', ')}${spec.limits ? '' : ' (the defaults)'}`;
  if (spec.mode === 'off') return `${OFF_WORDS} · ${limits}`;
  const parts = [kind ? `strict (${kind})` : 'strict', networkWords(spec.network, ': ')];
  if (spec.hostPorts.length) parts.push(`host ports: ${spec.hostPorts.join(', ')}`);
  parts.push(`reads: system files, workspace${spec.read.length ? `, ${spec.read.join(', ')}` : ''}`);
  parts.push(`writes: workspace${spec.write.length ? `, ${spec.write.join(', ')}` : ''}`);
  parts.push(limits);
  return parts.join(' · ');
}
