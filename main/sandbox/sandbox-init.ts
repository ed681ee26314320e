// Runs inside the sandbox, in its own network namespace, in front of the real command (built to
// out/sandbox-init.mjs). It listens on 127.0.0.1:PORT for each forward and pipes every
// connection to a Unix socket that Gatehouse bound in from the host, then runs the command and
// exits with its status. This is how a process whose network namespace has only its own loopback
// still reaches the gateway port (and the filtering proxy) and nothing else of the host.
//
// Usage: node sandbox-init.mjs [--forward PORT=SOCKET]... -- COMMAND [ARGS...]
//
// Signals: the supervisor signals the whole process group, which the command shares with this
// process, so the command gets SIGTERM/SIGINT/SIGHUP itself; here they are only kept from ending
// the forwarder before the command has exited (bwrap would then tear the namespace down).
import { spawn } from 'node:child_process';
import net from 'node:net';
import { pipeSockets } from './pipe-sockets';

interface Forward {
  port: number;
  socket: string;
}

function parse(argv: string[]): { forwards: Forward[]; command: string; args: string[] } {
  const forwards: Forward[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '--forward') {
      const spec = argv[++i] ?? '';
      const eq = spec.indexOf('=');
      const port = Number(spec.slice(0, eq));
      if (eq < 1 || !Number.isInteger(port) || port < 1 || port > 65535) fail(`--forward expects PORT=SOCKET, got '${spec}'`);
      forwards.push({ port, socket: spec.slice(eq + 1) });
      continue;
    }
    fail(`unknown argument '${arg}' (expected --forward PORT=SOCKET or --)`);
  }
  const [command, ...args] = argv.slice(i);
  if (!command) fail('no command after --');
  return { forwards, command: command!, args };
}

function fail(message: string): never {
  process.stderr.write(`gatehouse sandbox: ${message}\n`);
  process.exit(125);
}

function listen(f: Forward, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((inbound) => pipeSockets(inbound, net.connect(f.socket)));
    server.once('error', reject);
    server.listen({ port: f.port, host, exclusive: true }, () => resolve());
  });
}

async function main(): Promise<void> {
  const { forwards, command, args } = parse(process.argv.slice(2));
  for (const f of forwards) {
    try {
      await listen(f, '127.0.0.1');
    } catch (err) {
      fail(`cannot listen on 127.0.0.1:${f.port}: ${(err as Error).message}`);
    }
    // `localhost` resolves to ::1 first for many clients; the same forward there, when it can.
    await listen(f, '::1').catch(() => {});
  }
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'] as const) process.on(sig, () => {});
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (err) => fail(`cannot run ${command}: ${err.message}`));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

void main();
