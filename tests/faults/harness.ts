// The fault-injection harness (docs/gateway.md "Limits under faults and load"): the real `gatehouse gateway` (stdio) as a child
// process in front of two servers, `good` (well behaved) and `bad` (tests/faults/fixtures/
// faulty-server.mjs in one misbehaving mode), driven by a raw JSON-RPC peer that counts every
// answer per request id, while the gateway's RSS is sampled from /proc.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { buildTestBundle, type TestBundle } from '../support/build';
import { RawStdioPeer, type RawFrame } from '../support/raw-stdio';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';

export const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'faulty-server.mjs');
/** The gateway's documented RSS ceiling under any one server's fault (docs/gateway.md). */
export const RSS_CEILING_MB = 250;

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fault-agent', version: '1.0.0' } };

export interface BadServer {
  args: string[];
  /** Extra YAML lines for the bad server (indented under it). */
  extra?: string;
  /** request_timeout_s of the bad server (default 20). */
  requestTimeoutS?: number;
}

export function profileYaml(bad: BadServer, goodArgs: string[] = ['--mode', 'ok']): string {
  const list = (a: string[]) => JSON.stringify([FIXTURE, ...a]);
  return `
name: faults
workspace: ./ws
servers:
  good:
    command: ${process.execPath}
    args: ${list(goodArgs)}
  bad:
    command: ${process.execPath}
    args: ${list(bad.args)}
    startup_timeout_s: 3
    request_timeout_s: ${bad.requestTimeoutS ?? 20}
    restart: { max_restarts: 2, initial_backoff_ms: 200, max_backoff_ms: 1000 }
${bad.extra ?? ''}
policy:
  default: allow
`;
}

export class FaultRig {
  readonly tmp = tempDir('gatehouse-faults-');
  readonly peer: RawStdioPeer;
  readonly dataDir: string;
  private nextId = 1;
  /** Every request id the agent sent. */
  readonly sent: Array<string | number> = [];
  private sampler: NodeJS.Timeout | undefined;
  peakRssMb = 0;

  constructor(cli: string, yaml: string, env: NodeJS.ProcessEnv = {}) {
    const file = writeProfile(this.tmp.dir, yaml);
    this.dataDir = path.join(this.tmp.dir, 'data');
    // A person approved these launch commands (docs/trust.md "Launch consent"): the faults are the servers', not trust's.
    pinProfile(this.dataDir, file);
    this.peer = new RawStdioPeer(process.execPath, [cli, 'gateway', '--profile', file, '--data-dir', this.dataDir, '--tool-surface', 'canonical'], {
      cwd: this.tmp.dir,
      env: { ...process.env, ...env },
    });
    this.sampler = setInterval(() => this.sampleRss(), 50);
  }

  get pid(): number {
    return this.peer.child.pid!;
  }

  sampleRss(): number {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      const mb = m ? Number(m[1]) / 1024 : 0;
      this.peakRssMb = Math.max(this.peakRssMb, mb);
      return mb;
    } catch {
      return 0;
    }
  }

  async initialize(limitMs = 60_000): Promise<RawFrame> {
    const res = await this.request('initialize', INIT, limitMs);
    this.peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return res;
  }

  /** Sends a request and waits for its (first) answer. */
  async request(method: string, params: unknown = {}, limitMs = 60_000): Promise<RawFrame> {
    const id = this.nextId++;
    this.sent.push(id);
    this.peer.send({ jsonrpc: '2.0', id, method, params });
    return this.answerTo(id, `the answer to ${method} #${id}`, limitMs);
  }

  /** Resolves on the stdout chunk that completes the answer (event-driven: latencies are not quantised by polling). */
  private answerTo(id: number, what: string, limitMs: number): Promise<RawFrame> {
    const match = (f: RawFrame) => f.message.id === id && ('result' in f.message || 'error' in f.message);
    const found = this.peer.frames.find(match);
    if (found) return Promise.resolve(found);
    const stdout = this.peer.child.stdout;
    return new Promise((resolve, reject) => {
      const onData = () => {
        const frame = this.peer.frames.find(match);
        if (!frame) return;
        done();
        resolve(frame);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}; stderr: ${this.peer.stderr.slice(-3000)}`));
      }, limitMs);
      const done = () => {
        clearTimeout(timer);
        stdout.off('data', onData);
      };
      // Registered after the peer's own listener, so the frame is parsed when this runs.
      stdout.on('data', onData);
    });
  }

  call(tool: string, args: Record<string, unknown> = {}, limitMs = 60_000): Promise<RawFrame> {
    return this.request('tools/call', { name: tool, arguments: args }, limitMs);
  }

  /** Text of a tools/call answer (or the error message). */
  static text(frame: RawFrame): string {
    const m = frame.message as { result?: { content?: Array<{ text?: string }> }; error?: { message?: string } };
    if (m.error) return `error ${String((m.error as { code?: number }).code)}: ${m.error.message}`;
    return (m.result?.content ?? []).map((c) => c.text ?? '').join('\n');
  }

  /** Ids answered other than exactly once (after a settling pause). */
  answerCounts(): { missing: Array<string | number>; duplicated: Array<string | number> } {
    const counts = new Map<string | number, number>();
    for (const f of this.peer.frames) {
      const id = f.message.id as string | number | undefined;
      if (id !== undefined && ('result' in f.message || 'error' in f.message)) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return {
      missing: this.sent.filter((id) => !counts.has(id)),
      duplicated: this.sent.filter((id) => (counts.get(id) ?? 0) > 1),
    };
  }

  /** The gateway's status lines for `bad` (it logs every state change to stderr). */
  badStates(): string[] {
    return this.peer.stderr.split('\n').filter((l) => /\]\s+bad\s/.test(l));
  }

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.sampler) clearInterval(this.sampler);
    this.sampler = undefined;
    this.peer.child.stdin.end();
    const timer = setTimeout(() => this.peer.kill(), 20_000);
    const exit = await this.peer.exit;
    clearTimeout(timer);
    return exit;
  }

  cleanup(): void {
    if (this.sampler) clearInterval(this.sampler);
    this.peer.kill();
    this.tmp.cleanup();
  }
}

/**
 * The CLI built from this checkout for the file's tests (a private bundle, so no test races a
 * concurrent `npm run build`): registers its build and cleanup, returns its entry lazily.
 */
export function useCliBundle(): () => string {
  let bundle: TestBundle | undefined;
  beforeAll(() => {
    bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'faults');
  });
  afterAll(() => bundle?.cleanup());
  return () => bundle!.entry('cli');
}
