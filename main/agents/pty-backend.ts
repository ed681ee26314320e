// node-pty behind a small interface (ARCHITECTURE.md: native modules sit behind small
// interfaces), loaded lazily so nothing that does not open a terminal pays for it.
import { createRequire } from 'node:module';

export interface PtyProcess {
  readonly pid: number;
  onData(listener: (data: Buffer | string) => void): void;
  onExit(listener: (e: { exitCode: number; signal?: number }) => void): void;
  write(data: string): void;
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
      return {
        get pid() {
          return proc.pid;
        },
        onData: (l) => void proc.onData(l as (d: string) => void),
        onExit: (l) => void proc.onExit(l),
        write: (d) => proc.write(d),
        resize: (c, r) => proc.resize(c, r),
        pause: () => proc.pause(),
        resume: () => proc.resume(),
        kill: (s) => proc.kill(s),
      };
    },
  };
}
