// One terminal: a program in a pseudo-terminal, its output batched for viewers, flow-controlled,
// and a bounded scrollback replayed to a window that attaches late. Modelled on VS Code's
// terminal (STYLE.md): batch output every few ms, pause the pty above a high watermark of
// unacknowledged output and resume when the viewer acknowledges what xterm has parsed; decode
// with a StringDecoder so a multibyte character split across reads is never broken.
import { EventEmitter } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import type { PtyBackend, PtyProcess } from './pty-backend';

/** Hyper batches at 16 ms / 200 KB; the same numbers work here. */
const BATCH_MS = 16;
const BATCH_MAX_CHARS = 200_000;
/** Pause the pty above this much unacknowledged output; resume under the low watermark. */
export const HIGH_WATERMARK = 512_000;
export const LOW_WATERMARK = 64_000;
const DEFAULT_SCROLLBACK_CHARS = 2_000_000;

export interface TerminalSpec {
  id: string;
  title: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  cols?: number;
  rows?: number;
  scrollbackChars?: number;
  /** What the terminal shows as its command, when `command` is a wrapper (the OS sandbox). */
  shownCommand?: string;
}

export interface TerminalInfo {
  id: string;
  title: string;
  command: string;
  cwd: string;
  pid?: number;
  cols: number;
  rows: number;
  startedAt: number;
  exit?: { code: number | null; signal: number | null; at: number };
}

type Events = {
  /** A batch of output (already decoded, in order). */
  data: [string];
  exit: [{ code: number | null; signal: number | null }];
};

export class TerminalSession extends EventEmitter<Events> {
  readonly id: string;
  private readonly pty: PtyProcess;
  private readonly decoder = new StringDecoder('utf8');
  private pendingOut = '';
  private batchTimer: NodeJS.Timeout | undefined;
  /** Output sent to viewers and not yet acknowledged (the flow-control window). */
  private unacked = 0;
  private paused = false;
  /** Viewers that take part in flow control; with none, output is never held back. */
  private flowViewers = 0;
  private scrollback: string[] = [];
  private scrollbackChars = 0;
  private readonly scrollbackLimit: number;
  private info: TerminalInfo;
  private exitWatch: NodeJS.Timeout | undefined;
  private childGone = false;

  constructor(backend: PtyBackend, spec: TerminalSpec) {
    super();
    this.id = spec.id;
    this.scrollbackLimit = spec.scrollbackChars ?? DEFAULT_SCROLLBACK_CHARS;
    const cols = spec.cols ?? 120;
    const rows = spec.rows ?? 32;
    this.pty = backend.spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, cols, rows });
    this.info = { id: spec.id, title: spec.title, command: spec.shownCommand ?? [spec.command, ...spec.args].join(' '), cwd: spec.cwd, pid: this.pty.pid, cols, rows, startedAt: Date.now() };
    this.pty.onData((chunk) => this.onOutput(chunk));
    this.pty.onExit(({ exitCode, signal }) => {
      const tail = this.decoder.end();
      if (tail) this.queue(tail);
      this.flush();
      this.info = { ...this.info, exit: { code: exitCode ?? null, signal: signal ?? null, at: Date.now() } };
      if (this.exitWatch) clearInterval(this.exitWatch);
      this.exitWatch = undefined;
      this.emit('exit', { code: exitCode ?? null, signal: signal ?? null });
    });
  }

  status(): TerminalInfo {
    return this.info;
  }

  get pid(): number | undefined {
    return this.pty.pid;
  }

  /** Everything still held in the scrollback, for a window that attaches late. */
  replay(): string {
    return this.scrollback.join('');
  }

  write(data: string): void {
    if (!this.info.exit) this.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    if (this.info.exit) return;
    this.pty.resize(cols, rows);
    this.info = { ...this.info, cols, rows };
  }

  /** A viewer that acknowledges output joins flow control; call the returned function when it leaves. */
  joinFlowControl(): () => void {
    this.flowViewers += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.flowViewers -= 1;
      if (this.flowViewers === 0) {
        this.unacked = 0;
        this.setPaused(false);
      }
    };
  }

  /** The viewer has parsed `chars` more characters. */
  acknowledge(chars: number): void {
    this.unacked = Math.max(0, this.unacked - chars);
    if (this.paused && this.unacked < LOW_WATERMARK) this.setPaused(false);
  }

  kill(signal: NodeJS.Signals = 'SIGHUP'): void {
    if (!this.info.exit) this.pty.kill(signal);
  }

  flowState(): { unacked: number; paused: boolean } {
    return { unacked: this.unacked, paused: this.paused };
  }

  private onOutput(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (text) this.queue(text);
  }

  private queue(text: string): void {
    this.pendingOut += text;
    if (this.pendingOut.length >= BATCH_MAX_CHARS) this.flush();
    else this.batchTimer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  private flush(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const out = this.pendingOut;
    if (!out) return;
    this.pendingOut = '';
    this.remember(out);
    if (this.flowViewers > 0) {
      this.unacked += out.length;
      if (this.unacked > HIGH_WATERMARK) this.setPaused(true);
    }
    this.emit('data', out);
  }

  private remember(text: string): void {
    this.scrollback.push(text);
    this.scrollbackChars += text.length;
    while (this.scrollbackChars > this.scrollbackLimit && this.scrollback.length > 1) {
      this.scrollbackChars -= this.scrollback.shift()!.length;
    }
  }

  private setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    // Never pause once the program is gone: what is left in the pty must drain (see below).
    if (paused && (this.info.exit || this.childGone)) return;
    this.paused = paused;
    if (paused) {
      this.pty.pause();
      // Trap: node-pty, when the child exits, waits at most 200 ms for its socket to close and
      // then destroys it, discarding output not yet read. A paused socket is not read, so a fast
      // producer that exits while a slow window lags would lose its last output. While paused,
      // watch the child; once it is gone, resume (nothing more can be produced, so the rest is
      // bounded by the pty's own buffer).
      this.exitWatch = setInterval(() => {
        if (this.pid === undefined || processGone(this.pid)) {
          this.childGone = true;
          this.setPaused(false);
        }
      }, 25);
    } else {
      if (this.exitWatch) clearInterval(this.exitWatch);
      this.exitWatch = undefined;
      this.pty.resume();
    }
  }
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
