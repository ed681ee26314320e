// The approvals relay, gateway side. A `gatehouse gateway` started by another MCP host has no
// window of its own; when a Gatehouse window runs with the same data directory, its APPROVAL
// requests go to that window's inbox over `<dataDir>/approvals.sock` (relay-server.ts,
// relay-wire.ts) and the person's answer comes back.
//
// RelayingApprovalBroker is an ApprovalBroker (the Gateway needs no change) that decides per
// request: a local approver (the terminal) answers as before; else a connected window with at
// least one UI approver is asked; else it is a DENY at once that says how to get approvals.
// Questions (`ask`: a server's sampling or elicitation request no agent client can answer) take
// the same route, and fail closed the same way.
import fs from 'node:fs';
import net from 'node:net';
import { EventEmitter } from 'node:events';
import {
  ApprovalBroker,
  cancelledOutcome,
  timeoutOutcome,
  type ApprovalBrokerOptions,
  type ApprovalOutcome,
  type ApprovalRequest,
  type AskRequest,
  type AskResult,
} from './broker';
import { acceptAnswer, isUrlElicitation } from './questions';
import {
  LineSplitter,
  parseLine,
  RELAY_PROTOCOL_VERSION,
  ServerMessageSchema,
  toAskResult,
  toOutcome,
  toRelayedAsk,
  toRelayedRequest,
  type ClientMessage,
  type RelayedAsk,
  type RelayedRequest,
} from './relay-wire';

export const RELAY_NO_APPROVER_REASON =
  'approval required but no approver is attached: open the Gatehouse window (gatehouse serve or the desktop app) with the same data directory, or run the gateway in a terminal';
export const RELAY_LOST_REASON = 'the Gatehouse window went away before anyone answered';
export const RELAY_NO_QUESTIONS_REASON =
  'no approver here can answer questions from servers, and the Gatehouse window is too old to take them: update it, or run the gateway in a terminal';
export const RELAY_BAD_ANSWER_REASON = "the Gatehouse window's answer does not fit the question";

export interface RelayClientOptions {
  socketPath: string;
  profile: string;
  pid?: number;
  /** Reconnect backoff: first delay and cap (defaults 250 ms, 5 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Lines for stderr (never stdout: that is protocol). */
  log?: (line: string) => void;
}

type RelayState = 'idle' | 'connecting' | 'connected' | 'closed';

type Submitted = { kind: 'request'; onOutcome: (o: ApprovalOutcome) => void } | { kind: 'ask'; onAnswer: (r: AskResult) => void };

/** One connection to a window's relay, kept up with reconnects; never throws, never blocks. */
export class RelayClient extends EventEmitter<{ state: [RelayState, number] }> {
  private state: RelayState = 'idle';
  private socket: net.Socket | undefined;
  private welcomed = false;
  private approverCount = 0;
  private windowQuestions = false;
  private backoff: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private nextId = 1;
  private readonly submitted = new Map<string, Submitted>();
  private warned = false;
  private attempted = false;
  private firstAttempt: Promise<void>;
  private markAttempted: () => void = () => {};

  constructor(private readonly opts: RelayClientOptions) {
    super();
    this.backoff = opts.initialBackoffMs ?? 250;
    this.firstAttempt = new Promise((resolve) => (this.markAttempted = resolve));
  }

  start(): void {
    if (this.state !== 'idle') return;
    this.connect();
  }

  /** Resolves once the first connection attempt has succeeded or failed (or after `limitMs`). */
  async ready(limitMs = 1000): Promise<void> {
    let t: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.firstAttempt, new Promise<void>((r) => (t = setTimeout(r, limitMs)))]);
    clearTimeout(t);
  }

  /** Connected, welcomed, and the window has at least one UI approver attached. */
  canForward(): boolean {
    return this.state === 'connected' && this.welcomed && this.approverCount > 0;
  }

  /** canForward(), and the window takes questions (`ask`). */
  canAsk(): boolean {
    return this.canForward() && this.windowQuestions;
  }

  connected(): boolean {
    return this.state === 'connected' && this.welcomed;
  }

  approvers(): number {
    return this.connected() ? this.approverCount : 0;
  }

  /** Sends one request; `onOutcome` is called exactly once unless `cancel()` comes first. */
  submit(request: RelayedRequest, timeoutMs: number, onOutcome: (o: ApprovalOutcome) => void): { cancel(): void } {
    const id = String(this.nextId++);
    if (!this.connected()) {
      queueMicrotask(() => onOutcome({ approved: false, how: 'no_approver', reason: RELAY_NO_APPROVER_REASON }));
      return { cancel: () => {} };
    }
    this.submitted.set(id, { kind: 'request', onOutcome });
    this.send({ type: 'request', id, request, timeoutMs: wireTimeout(timeoutMs) });
    return this.canceller(id);
  }

  /** Sends one question; `onAnswer` is called exactly once unless `cancel()` comes first. */
  submitAsk(request: RelayedAsk, timeoutMs: number, onAnswer: (r: AskResult) => void): { cancel(): void } {
    const id = String(this.nextId++);
    if (!this.connected() || !this.windowQuestions) {
      const reason = this.connected() ? RELAY_NO_QUESTIONS_REASON : RELAY_NO_APPROVER_REASON;
      queueMicrotask(() => onAnswer({ answered: false, how: 'no_approver', reason }));
      return { cancel: () => {} };
    }
    this.submitted.set(id, { kind: 'ask', onAnswer });
    this.send({ type: 'ask', id, request, timeoutMs: wireTimeout(timeoutMs) });
    return this.canceller(id);
  }

  private canceller(id: string): { cancel(): void } {
    return {
      cancel: () => {
        if (!this.submitted.delete(id)) return;
        this.send({ type: 'cancel', id });
      },
    };
  }

  close(): void {
    if (this.state === 'closed') return;
    this.setState('closed');
    clearTimeout(this.timer);
    this.socket?.destroy();
    this.socket = undefined;
    this.failAll(RELAY_LOST_REASON);
    this.markAttempted();
  }

  private send(msg: ClientMessage): void {
    const s = this.socket;
    if (s && !s.destroyed && s.writable) s.write(`${JSON.stringify(msg)}\n`);
  }

  private setState(state: RelayState): void {
    this.state = state;
    this.emit('state', state, this.approvers());
  }

  private connect(): void {
    if (this.state === 'closed') return;
    this.setState('connecting');
    const why = checkSocket(this.opts.socketPath);
    if (why) return this.retry(why);
    const socket = net.connect(this.opts.socketPath);
    this.socket = socket;
    const lines = new LineSplitter();
    let up = false;
    socket.once('connect', () => {
      up = true;
      this.send({ type: 'hello', pid: this.opts.pid ?? process.pid, profile: this.opts.profile, version: RELAY_PROTOCOL_VERSION });
    });
    socket.on('data', (chunk: Buffer) => {
      const got = lines.push(chunk);
      if (got === 'overflow') return void socket.destroy();
      for (const line of got) {
        if (line.trim() === '') continue;
        const msg = parseLine(ServerMessageSchema, line);
        if (!msg) return void socket.destroy();
        if (msg.type === 'welcome') {
          this.welcomed = true;
          this.approverCount = msg.approvers;
          this.windowQuestions = msg.questions === true;
          this.backoff = this.opts.initialBackoffMs ?? 250;
          this.warned = false;
          this.opts.log?.(`gatehouse gateway: approvals now go to the Gatehouse window (${msg.approvers} approver${msg.approvers === 1 ? '' : 's'} attached)`);
          this.setState('connected');
          this.attempted = true;
          this.markAttempted();
        } else if (msg.type === 'approvers') {
          this.approverCount = msg.count;
          this.emit('state', this.state, this.approvers());
        } else {
          const s = this.submitted.get(msg.id);
          // An outcome for a question or an answer for a request settles nothing (the local timeout still holds).
          if (!s || s.kind !== (msg.type === 'outcome' ? 'request' : 'ask')) continue;
          this.submitted.delete(msg.id);
          if (s.kind === 'request' && msg.type === 'outcome') s.onOutcome(toOutcome(msg.outcome));
          else if (s.kind === 'ask' && msg.type === 'answer') s.onAnswer(toAskResult(msg.result));
        }
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      const wasWelcomed = this.welcomed;
      this.welcomed = false;
      this.approverCount = 0;
      this.windowQuestions = false;
      this.failAll(RELAY_LOST_REASON);
      if (this.state === 'closed') return;
      if (wasWelcomed) this.opts.log?.('gatehouse gateway: the Gatehouse window went away; calls that need approval are denied until it is back');
      this.retry(up ? undefined : `nothing answers on ${this.opts.socketPath}`);
    });
  }

  private retry(why: string | undefined): void {
    if (this.state === 'closed') return;
    if (why && !this.warned && !this.attempted) {
      // One line, once: the window may simply not be running yet.
      this.warned = true;
      this.opts.log?.(`gatehouse gateway: no Gatehouse window to send approvals to yet (${why}); will keep trying`);
    }
    this.attempted = true;
    this.markAttempted();
    this.setState('connecting');
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, this.opts.maxBackoffMs ?? 5000);
    this.timer = setTimeout(() => this.connect(), delay);
    // A gateway waiting for a window must not be kept alive by it.
    this.timer.unref?.();
  }

  private failAll(reason: string): void {
    const all = [...this.submitted.values()];
    this.submitted.clear();
    for (const s of all) {
      if (s.kind === 'request') s.onOutcome({ approved: false, how: 'no_approver', reason });
      else s.onAnswer({ answered: false, how: 'no_approver', reason });
    }
  }
}

function wireTimeout(timeoutMs: number): number {
  return Math.max(1, Math.min(Math.round(timeoutMs), 2 ** 31 - 1));
}

/**
 * Only a socket owned by this user is trusted to carry a person's answers (POSIX; on Windows
 * the pipe name is derived from the data dir). Returns why not, or undefined.
 */
function checkSocket(socketPath: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(socketPath);
  } catch {
    return `no ${socketPath}`;
  }
  if (!st.isSocket()) return `${socketPath} is not a socket`;
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return `${socketPath} belongs to another user`;
  return undefined;
}

export type RelayingApprovalBrokerOptions = Omit<ApprovalBrokerOptions, 'noApproverReason'>;

/**
 * An ApprovalBroker that asks a Gatehouse window through the relay when nobody here can answer.
 * Remembered grants made in the window (`session`, `tool_session`) are remembered here too, so
 * identical calls are not asked again; the local timeout and the caller's cancel still apply.
 */
export class RelayingApprovalBroker extends ApprovalBroker {
  constructor(
    readonly relay: RelayClient,
    options: RelayingApprovalBrokerOptions = {},
  ) {
    super({ ...options, noApproverReason: RELAY_NO_APPROVER_REASON });
  }

  /** Where an APPROVAL would go right now. */
  route(): 'local' | 'relay' | 'none' {
    if (this.approvers().length > 0) return 'local';
    return this.relay.canForward() ? 'relay' : 'none';
  }

  override approvalUnavailable(): string | undefined {
    return this.route() === 'none' ? RELAY_NO_APPROVER_REASON : undefined;
  }

  override request(req: ApprovalRequest, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<ApprovalOutcome> {
    // Local approver, an earlier grant, a cancelled call or no window: exactly as before.
    if (this.route() !== 'relay' || opts.signal?.aborted || this.grantFor(req)) return super.request(req, opts);
    const timeoutMs = Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0 ? opts.timeoutMs : 0;
    return new Promise<ApprovalOutcome>((resolve) => {
      let done = false;
      // Both callbacks below run later (the relay answers asynchronously), never before `timer` is set.
      const finish = (outcome: ApprovalOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const handle = this.relay.submit(toRelayedRequest(req), Math.max(timeoutMs, 1), (outcome) => {
        if (done) return;
        if (outcome.approved && (outcome.how === 'session' || outcome.how === 'tool_session')) this.remember(req, outcome.how, outcome.by ?? 'window');
        finish(outcome);
      });
      const onAbort = () => {
        handle.cancel();
        finish(cancelledOutcome());
      };
      // The window caps and enforces the timeout too; this one holds even if it never answers.
      const timer = setTimeout(() => {
        handle.cancel();
        finish(timeoutOutcome(timeoutMs));
      }, timeoutMs);
      timer.unref?.();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * A question goes where a request would: the terminal, else the window (when it takes
   * questions), else nowhere (fail closed, saying how to fix it). The window's answer is checked
   * against the question here too, and the result the server gets is rebuilt from it.
   */
  override ask(req: AskRequest, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<AskResult> {
    if (this.route() !== 'relay' || opts.signal?.aborted) return super.ask(req, opts);
    if (!this.relay.canAsk()) return Promise.resolve({ answered: false, how: 'no_approver', reason: RELAY_NO_QUESTIONS_REASON });
    const timeoutMs = Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0 ? opts.timeoutMs : 0;
    return new Promise<AskResult>((resolve) => {
      let done = false;
      const finish = (result: AskResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const handle = this.relay.submitAsk(toRelayedAsk(req), Math.max(timeoutMs, 1), (result) => finish(checkWindowAnswer(req, result)));
      const onAbort = () => {
        handle.cancel();
        finish({ answered: false, how: 'cancelled', reason: cancelledOutcome().reason });
      };
      const timer = setTimeout(() => {
        handle.cancel();
        finish({ answered: false, how: 'timeout', reason: timeoutOutcome(timeoutMs).reason });
      }, timeoutMs);
      timer.unref?.();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * An answered result from the window, checked with the same rules the window's broker used
 * (questions.ts): elicitation `{action: 'accept', content?}` whose content fits the schema, or
 * a sampling reply with text. Anything else is a decline.
 */
function checkWindowAnswer(req: AskRequest, result: AskResult): AskResult {
  if (!result.answered) return result;
  const r = result.content;
  let content: unknown;
  if (req.kind === 'sampling') {
    const c = r.content as { type?: unknown; text?: unknown } | undefined;
    content = c && c.type === 'text' ? { text: c.text } : undefined;
  } else if (r.action === 'accept') {
    content = isUrlElicitation(req.question) ? undefined : (r.content ?? {});
  } else {
    return { answered: false, how: 'declined', by: result.by, reason: RELAY_BAD_ANSWER_REASON };
  }
  const check = acceptAnswer(req.kind, req.question, content);
  if (!check.ok) return { answered: false, how: 'declined', by: result.by, reason: `${RELAY_BAD_ANSWER_REASON}: ${check.error}` };
  return { answered: true, by: result.by, content: check.result };
}
