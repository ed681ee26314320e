// A raw peer for a stdio MCP process: writes newline or Content-Length frames to its stdin and
// parses *every* byte of its stdout as a frame (a stray byte fails the test), remembering the
// framing each frame came in.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export type RawFraming = 'line' | 'content-length';

export interface RawFrame {
  framing: RawFraming;
  message: Record<string, unknown>;
  text: string;
}

export class RawStdioPeer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly frames: RawFrame[] = [];
  /** Anything on stdout that was not a frame (should stay empty). */
  readonly garbage: string[] = [];
  stderr = '';
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buf = Buffer.alloc(0);

  constructor(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
    this.child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      this.drain();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (s: string) => (this.stderr += s));
    this.exit = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  private drain(): void {
    for (;;) {
      if (this.buf.length === 0) return;
      const head = this.buf.subarray(0, Math.min(this.buf.length, 32)).toString('latin1');
      if (/^content-(length|type)/i.test(head) || (this.buf.length < 16 && /^c/i.test(head))) {
        const end = this.buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const headers = this.buf.subarray(0, end).toString('latin1');
        const m = /content-length:\s*(\d+)/i.exec(headers);
        if (!m) {
          this.garbage.push(headers);
          this.buf = this.buf.subarray(end + 4);
          continue;
        }
        const len = Number(m[1]);
        if (this.buf.length < end + 4 + len) return;
        const text = this.buf.subarray(end + 4, end + 4 + len).toString('utf8');
        this.buf = this.buf.subarray(end + 4 + len);
        this.push('content-length', text);
        continue;
      }
      const nl = this.buf.indexOf(0x0a);
      if (nl < 0) return;
      const text = this.buf.subarray(0, nl).toString('utf8').replace(/\r$/, '');
      this.buf = this.buf.subarray(nl + 1);
      this.push('line', text);
    }
  }

  private push(framing: RawFraming, text: string): void {
    try {
      const message = JSON.parse(text) as unknown;
      if (!message || typeof message !== 'object' || Array.isArray(message)) throw new Error('not an object');
      this.frames.push({ framing, message: message as Record<string, unknown>, text });
    } catch {
      this.garbage.push(text);
    }
  }

  /** Bytes received but not yet a whole frame. */
  pendingBytes(): number {
    return this.buf.length;
  }

  send(message: unknown, framing: RawFraming = 'line'): void {
    this.sendText(JSON.stringify(message), framing);
  }

  sendText(text: string, framing: RawFraming = 'line'): void {
    if (framing === 'line') this.child.stdin.write(`${text}\n`);
    else this.child.stdin.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  }

  async waitFor(match: (f: RawFrame) => boolean, what: string, limitMs = 20_000): Promise<RawFrame> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; frames: ${this.frames.map((f) => f.text.slice(0, 200)).join('\n')}\nstderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Sends a request and waits for the frame answering its id. */
  async request(id: string | number, method: string, params: unknown = {}, framing: RawFraming = 'line'): Promise<RawFrame> {
    this.send({ jsonrpc: '2.0', id, method, params }, framing);
    return this.waitFor((f) => f.message.id === id && ('result' in f.message || 'error' in f.message), `the answer to ${method} #${id}`);
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
