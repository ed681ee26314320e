// node-pty behind a small interface (ARCHITECTURE.md: native modules sit behind small
// interfaces), loaded lazily so nothing that does not open a terminal pays for it.
import { createRequire } from 'node:module';
import { sandboxMembers } from '../sandbox/signal-tree';

export interface PtyProcess {
  readonly pid: number;
  onData(listener: (data: Buffer | string) => void): void;
  onExit(listener: (e: { exitCode: number; signal?: number }) => void): void;
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
  kill(signal?: string): void;
}

export interface PtyBackend {
  spawn(command: string, args: string[], opts: { cwd: string; env: Record<string, string>; cols: number; rows: number }): PtyProcess;
}

type NodePty = typeof import('node-pty');

let loaded: NodePty | undefined;

export function nodePtyBackend(): PtyBackend {
  loaded ??= createRequire(import.meta.url)('node-pty') as NodePty;
  const pty = loaded;
  return {
    spawn(command, args, opts) {
      const proc = pty.spawn(command, args, {
        name: 'xterm-256color',
        cols: opts.cols,
        rows: opts.rows,
        cwd: opts.cwd,
        env: opts.env,
        // Raw bytes: we decode with our own StringDecoder, so multibyte characters split across
        // reads are reassembled exactly once, in one place.
        encoding: null,
      });
      deferSocketDestroy(proc);
      // One /proc walk per burst of resizes (a window being dragged): measured 7.6 ms a walk with
      // 117 processes on the shared 2-core machine.
      let winch: NodeJS.Timeout | undefined;
      return {
        get pid() {
          return proc.pid;
        },
        onData: (l) => void proc.onData(l as (d: string) => void),
        onExit: (l) => void proc.onExit(l),
        write: (d) => proc.write(d),
        resize: (c, r) => {
          proc.resize(c, r);
          winch ??= setTimeout(() => {
            winch = undefined;
            forwardWinch(proc.pid);
          }, 50).unref();
        },
        pause: () => proc.pause(),
        resume: () => proc.resume(),
        kill: (s) => proc.kill(s),
      };
    },
  };
}

/**
 * The kernel sends SIGWINCH on a resize only to the pty session's foreground group, and a
 * sandboxed program is in a session of its own (bwrap --new-session: main/sandbox/bwrap-args.ts),
 * so without this it would never learn the new size. Every process under the pty's child gets
 * one (SIGWINCH is ignored by default: an extra one costs a program nothing); bwrap's own init
 * is left out (main/sandbox/signal-tree.ts). Unsandboxed, the kernel's own SIGWINCH also comes.
 */
function forwardWinch(pid: number): void {
  if (process.platform !== 'linux') return;
  for (const member of sandboxMembers(pid)) {
    try {
      process.kill(member, 'SIGWINCH');
    } catch {}
  }
}

/**
 * Trap: node-pty (unixTerminal.js) destroys the pty socket 200 ms after the child exits, a
 * workaround for macOS sockets that never close. On Linux the socket closes by itself (EIO)
 * once the output left in the pty has been read; destroying it earlier discards that output.
 * So when that destroy comes while the socket is still open, drain first (resume: the child is
 * gone, nothing more can come) and destroy on close, or after 5 s at most.
 * This narrows, but does not close, node-pty's known Linux race where the last output of a
 * program that exits at once can be dropped under load (microsoft/node-pty#72, #726): a full
 * test run on 2 shared cores still lost the last ~8 KB of a 50 MB producer now and then. Output
 * while the program runs is never lost; the tests hold the producer until everything arrived.
 */
function deferSocketDestroy(proc: unknown): void {
  const socket = (proc as { _socket?: import('node:net').Socket })._socket;
  if (!socket || typeof socket.destroy !== 'function') return;
  const destroyNow = socket.destroy.bind(socket);
  let deferred = false;
  socket.destroy = ((err?: Error) => {
    if (deferred || err || socket.destroyed || socket.readableEnded) return destroyNow(err);
    deferred = true;
    const cap = setTimeout(() => destroyNow(), 5000);
    cap.unref();
    const done = () => {
      clearTimeout(cap);
      if (!socket.destroyed) destroyNow();
    };
    socket.once('close', done);
    socket.once('error', done);
    socket.resume();
    return socket;
  }) as typeof socket.destroy;
}
