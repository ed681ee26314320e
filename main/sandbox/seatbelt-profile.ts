// The macOS counterpart of bwrap-args.ts: the same mount plan and network mode as a sandbox-exec
// (Seatbelt, SBPL) profile. In SBPL the last matching rule wins, so the plan's depth order (most
// specific last) means the same as the Linux mount order. This cannot run on the Linux CI machine:
// the generated text is unit-tested (seatbelt-profile.test.ts) and docs/sandbox.md says so.
//
// What macOS cannot give: no PID namespace (so no --die-with-parent: a server's setsid daemon can
// outlive a SIGKILLed Gatehouse; an orderly stop still kills the process group), no network
// namespace (so "the sandbox's own loopback" is the host's, and `loopback` allows outbound
// connections only to the granted 127.0.0.1 ports; the proxy listens on a host port).
// Unix sockets: no network-outbound rule names one, so under (deny default) connecting to any is
// denied; the mount plan's hidden list (hidden-paths.ts, /private/var/run among it) denies reads.
import type { MountRule } from './mount-plan';
import type { SandboxNetwork } from './types';

export interface SeatbeltInput {
  rules: MountRule[];
  network: SandboxNetwork;
  /** Host 127.0.0.1 ports the process may connect to (granted ports, the proxy's port). */
  loopbackPorts: number[];
  /** A private temp folder for this process (TMPDIR), writable. */
  tmpDir: string;
}

export function sbplString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function seatbeltProfile(input: SeatbeltInput): string {
  const lines: string[] = [
    '(version 1)',
    '(deny default)',
    ';; processes: run and fork, signal and inspect only this sandbox',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm* ipc-posix-sem)',
    '(allow pseudo-tty)',
    '(allow file-ioctl (regex #"^/dev/tty") (literal "/dev/ptmx"))',
    ';; file system: everything readable, nothing writable, then the plan (most specific last)',
    '(allow file-read*)',
    '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$") (regex #"^/dev/fd/"))',
    `(allow file-read* file-write* (subpath ${sbplString(input.tmpDir)}))`,
  ];
  for (const rule of input.rules) {
    const filter = rule.kind === 'hide' && rule.type === 'file' ? `(literal ${sbplString(rule.path)})` : `(subpath ${sbplString(rule.path)})`;
    if (rule.kind === 'write') lines.push(`(allow file-read* file-write* ${filter})`);
    else if (rule.kind === 'read') lines.push(`(allow file-read* ${filter})`, ...(rule.protected ? [`(deny file-write* ${filter})`] : []));
    else lines.push(`(deny file-read* file-write* ${filter})`);
  }
  lines.push(`;; network: ${input.network.kind}`);
  if (input.network.kind !== 'none') {
    for (const port of [...new Set(input.loopbackPorts)].sort((a, b) => a - b)) {
      lines.push(`(allow network-outbound (remote ip ${sbplString(`localhost:${port}`)}))`);
    }
  }
  // DNS goes through mDNSResponder's Unix socket; without `allow` nothing needs it (the proxy resolves).
  return `${lines.join('\n')}\n`;
}
