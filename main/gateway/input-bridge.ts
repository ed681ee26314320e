// The bridge from an old-era server's mid-call requests to a new-era agent (docs/gateway.md "The input bridge").
//
// An old-era server asks its client (the gateway) for sampling, elicitation or roots while a
// call is in flight; a new-era agent cannot be asked: MCP 2026-07-28 has no server→client
// requests. So the gateway holds the upstream call in its exchange, answers the agent's request
// with `resultType: "input_required"` (the questions as `inputRequests`, and a sealed
// `requestState` naming the held exchange and round), and when the agent calls again with
// `inputResponses` and that state, answers the server's requests with them and waits for what
// the server does next: another question (another round), or its result.
//
// The server's requests reach the bridge through the governed path (server-requests.ts: policy
// for sampling, approvals, then `sessions.routeFor(parent, capability)`), which returns the
// bridge's RoutedSession for a held new-era call: its `channel.request` sends nothing, it
// queues the question. Questions raised together (within BATCH_MS of each other) go out in one
// `input_required` result. A call the agent never retries is released after `holdMs` (default
// DEFAULT_INPUT_HOLD_MS, GATEHOUSE_INPUT_HOLD_MS): the server's open requests are declined
// (elicitation: action decline; sampling: the spec's "User rejected sampling request"; roots: an
// error) and whatever the server answers then is dropped.
import type { ClientCapabilities, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ChannelRequestOptions, ExchangeChannel, RpcReply } from '../protocol/exchange-channel';
import { GatewayError, toRpcError, type RpcError } from './errors';
import { MISSING_CLIENT_CAPABILITY } from './era';
import { CancelledError, type Exchange, type ExchangeTable } from './exchanges';
import { RequestStateError, type RequestStateSealer } from './request-state';
import type { RoutedSession } from './ports';

export const DEFAULT_INPUT_HOLD_MS = 120_000;
/** Questions a server raises within this window of each other share one input_required result. */
const BATCH_MS = 25;
/** Expired holds remembered, so a late retry is told what happened rather than "unknown". */
const TOMBSTONES = 1000;
/** Calls held at once; beyond this the oldest is released (an agent that never retries cannot pin servers' calls without bound). */
export const MAX_HOLDS = 1000;

/** What the agent's request is answered with; `cancelled`: nothing (MCP cancellation: a cancelled request gets no answer). */
export type BridgeOutcome = { result: Record<string, unknown> } | { error: RpcError } | { cancelled: string };

interface Question {
  key: string;
  method: string;
  params: Record<string, unknown> | undefined;
  settle(reply: { result: Record<string, unknown> } | { error: RpcError }): void;
}

/** Who may resume a held call, and which request it was. */
export interface HoldContext {
  caller: string;
  target: string;
  capabilities: ClientCapabilities;
}

interface Hold extends HoldContext {
  ex: Exchange;
  /** input_required results sent so far; the state of the last one names this round. */
  round: number;
  /** The round whose state was already used (a second use is a replay). */
  used: number;
  questions: Map<string, Question>;
  keys: Map<string, number>;
  settled?: BridgeOutcome;
  missing?: string;
  wake?: () => void;
  batch?: ReturnType<typeof setTimeout>;
  expiry?: ReturnType<typeof setTimeout>;
  busy: boolean;
}

const SHORT: Record<string, string> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

/** What a server's request is answered with when the agent never answers it. */
function declineFor(method: string, why: string): { result: Record<string, unknown> } | { error: RpcError } {
  if (method === 'elicitation/create') return { result: { action: 'decline' } };
  if (method === 'sampling/createMessage') return { error: { code: -1, message: 'User rejected sampling request', data: { reason: why } } };
  return { error: { code: -32603, message: `the agent did not answer ${method}: ${why}` } };
}

/** Checks one inputResponses entry against what its question asked for; undefined when it fits. */
function badResponse(method: string, value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return `expected an object (the ${method} result), got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
  const v = value as Record<string, unknown>;
  if (method === 'elicitation/create' && !['accept', 'decline', 'cancel'].includes(String(v.action))) return `expected an ElicitResult with action accept, decline or cancel, got action ${JSON.stringify(v.action)}`;
  if (method === 'sampling/createMessage' && (typeof v.role !== 'string' || !v.content || typeof v.content !== 'object')) return 'expected a CreateMessageResult with role and content';
  if (method === 'roots/list' && !Array.isArray(v.roots)) return 'expected a ListRootsResult with a roots array';
  return undefined;
}

export interface InputBridgeOptions {
  table: ExchangeTable;
  sealer: RequestStateSealer;
  holdMs?: number;
}

export class InputBridge {
  private readonly holds = new Map<string, Hold>();
  private readonly expired = new Map<string, string>();
  readonly holdMs: number;
  private counter = 0;

  constructor(private readonly opts: InputBridgeOptions) {
    const env = Number(process.env.GATEHOUSE_INPUT_HOLD_MS);
    this.holdMs = opts.holdMs ?? (process.env.GATEHOUSE_INPUT_HOLD_MS && Number.isFinite(env) && env > 0 ? env : DEFAULT_INPUT_HOLD_MS);
  }

  /** Calls held now (waiting for an agent's retry or for their server). */
  heldCount(): number {
    return this.holds.size;
  }

  /** Starts a new-era call with the bridge in front of it; resolves with its result or its first input_required. */
  start(ex: Exchange, ctx: HoldContext, run: () => Promise<Record<string, unknown>>): Promise<BridgeOutcome> {
    const hold: Hold = { ...ctx, ex, round: 0, used: 0, questions: new Map(), keys: new Map(), busy: true };
    if (this.holds.size >= MAX_HOLDS) {
      const oldest = [...this.holds.values()].find((h) => !h.busy);
      if (oldest) this.release(oldest, `more than ${MAX_HOLDS} calls were held at once`);
    }
    this.holds.set(ex.id, hold);
    run().then(
      (result) => this.settle(hold, { result }),
      (err: unknown) => this.settle(hold, err instanceof CancelledError ? { cancelled: err.message } : { error: toRpcError(err) }),
    );
    return this.next(hold);
  }

  /**
   * A retry with `inputResponses` and the gateway's `requestState`: answers the held server's
   * requests and resolves with what comes next. Throws RequestStateError for a refused state.
   */
  async resume(token: unknown, inputResponses: unknown, ctx: HoldContext): Promise<BridgeOutcome> {
    const state = this.opts.sealer.open(token);
    const hold = this.holds.get(state.exchange);
    if (!hold) {
      const why = this.expired.get(state.exchange);
      throw new RequestStateError(why ? `Invalid requestState: the held call ${state.exchange} was released (${why})` : `Invalid requestState: no call ${state.exchange} is held (it finished, or this gateway restarted)`);
    }
    if (state.caller !== ctx.caller) throw new RequestStateError('Invalid requestState: it was issued to another client');
    if (state.target !== ctx.target) throw new RequestStateError(`Invalid requestState: it belongs to ${state.target}, not ${ctx.target}`);
    if (state.round !== hold.round || hold.used >= state.round) throw new RequestStateError(`Invalid requestState: round ${state.round} was already answered (the call is at round ${hold.round})`);
    if (hold.busy) throw new RequestStateError('Invalid requestState: another request is already resuming this call');
    const responses = inputResponses && typeof inputResponses === 'object' && !Array.isArray(inputResponses) ? (inputResponses as Record<string, unknown>) : undefined;
    if (inputResponses !== undefined && !responses) throw new GatewayError(-32602, `Invalid params: inputResponses must be an object keyed by the inputRequests keys, got ${inputResponses === null ? 'null' : typeof inputResponses}`);
    for (const [key, q] of hold.questions) {
      if (responses && key in responses) {
        const bad = badResponse(q.method, responses[key]);
        if (bad) throw new GatewayError(-32602, `Invalid params: inputResponses.${key}: ${bad}`);
      }
    }
    clearTimeout(hold.expiry);
    hold.used = state.round;
    hold.busy = true;
    hold.capabilities = ctx.capabilities;
    // Keys the agent did not answer stay open and are asked again; keys it did not get are ignored.
    for (const [key, q] of [...hold.questions]) {
      if (!responses || !(key in responses)) continue;
      hold.questions.delete(key);
      q.settle({ result: responses[key] as Record<string, unknown> });
    }
    return this.next(hold);
  }

  /**
   * The RoutedSession a server's request is sent to when its call came from a new-era agent
   * (session-setup.ts routeFor): undefined when the call is not held here.
   */
  routedSession(parent: Exchange, capability: keyof ClientCapabilities): RoutedSession | undefined {
    const hold = this.holds.get(parent.id);
    if (!hold) {
      const why = this.expired.get(parent.id);
      return why ? this.sessionFor(parent.id, (method) => declineFor(method, why)) : undefined;
    }
    if (!hold.capabilities[capability]) {
      // An old-era server asks whatever it likes mid-call. Elicitation has an ordinary "no"
      // (action: decline), so that question is declined to the server and the call goes on: a
      // server asking for a name and then sampling must still reach the agent with its sampling
      // question (conformance 2026-07-28 input-required-result-capability-check). Sampling and
      // roots can only be refused with an error: MCP 2026-07-28 then has the call fail with
      // -32021, and the server's request gets an error.
      return this.sessionFor(parent.id, (method) => {
        if (method === 'elicitation/create') return declineFor(method, `the agent did not declare the ${capability} capability`);
        hold.missing = capability;
        hold.wake?.();
        return { error: { code: MISSING_CLIENT_CAPABILITY, message: `the agent did not declare the ${capability} capability` } };
      });
    }
    return this.sessionFor(parent.id, (method, params, signal, inputKey) => this.ask(hold, method, params, signal, inputKey));
  }

  /** Releases every held call (the gateway stops): the servers get declines. */
  closeAll(): void {
    for (const hold of [...this.holds.values()]) this.release(hold, 'the gateway stopped');
  }

  // ---- inside ------------------------------------------------------------------------------

  private sessionFor(
    id: string,
    answer: (method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal, inputKey?: string) => ReturnType<typeof declineFor> | Promise<ReturnType<typeof declineFor>>,
  ): RoutedSession {
    const channel = {
      request: async (method: string, params: Record<string, unknown> | undefined, options: ChannelRequestOptions, onId?: (id: RequestId) => void): Promise<RpcReply> => {
        const rid = `bridge-${++this.counter}`;
        onId?.(rid);
        const reply = await answer(method, params, options.signal, options.inputKey);
        return { jsonrpc: '2.0', id: rid, ...reply } as RpcReply;
      },
    };
    // The bridge session sends nothing: only its channel's request is ever used (server-requests.ts toSession).
    return { id: `bridge:${id}`, server: undefined as never, channel: channel as unknown as ExchangeChannel };
  }

  /**
   * Queues one question of the held call. `inputKey`: the key a new-era server gave it (the
   * upstream side passes it through, so the agent sees the server's own name); otherwise the
   * bridge names it by its method.
   */
  private ask(hold: Hold, method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal, inputKey?: string): Promise<ReturnType<typeof declineFor>> {
    if (!this.holds.has(hold.ex.id)) return Promise.resolve(declineFor(method, 'the call is no longer held'));
    let key: string;
    if (inputKey && !hold.questions.has(inputKey)) key = inputKey;
    else {
      const short = SHORT[method] ?? method.replace(/\W+/g, '_');
      const n = (hold.keys.get(short) ?? 0) + 1;
      hold.keys.set(short, n);
      key = n === 1 ? short : `${short}_${n}`;
    }
    return new Promise((resolve) => {
      const onAbort = () => {
        if (hold.questions.delete(key)) resolve({ error: { code: -32800, message: 'the server cancelled its request' } });
      };
      hold.questions.set(key, {
        key,
        method,
        params,
        settle: (reply) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(reply);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      // A batch closes BATCH_MS after its last question.
      clearTimeout(hold.batch);
      hold.batch = setTimeout(() => {
        hold.batch = undefined;
        hold.wake?.();
      }, BATCH_MS);
    });
  }

  private settle(hold: Hold, outcome: BridgeOutcome): void {
    hold.settled = outcome;
    hold.wake?.();
    // Settled with nobody waiting (the agent is between rounds): kept until it retries or the hold expires.
  }

  /** Waits for the held call's next event and turns it into the agent's answer. */
  private async next(hold: Hold): Promise<BridgeOutcome> {
    try {
      for (;;) {
        if (hold.settled) {
          this.forget(hold);
          return hold.settled;
        }
        if (hold.missing) {
          const cap = hold.missing;
          this.release(hold, `the agent lacks the ${cap} capability`);
          this.opts.table.cancel(hold.ex, `the agent did not declare the ${cap} capability`);
          return { error: { code: MISSING_CLIENT_CAPABILITY, message: `Missing required client capability: the server asked for ${cap} during this request`, data: { requiredCapabilities: { [cap]: {} } } } };
        }
        if (hold.questions.size > 0 && !hold.batch) return this.inputRequired(hold);
        await new Promise<void>((resolve) => (hold.wake = resolve));
        hold.wake = undefined;
      }
    } finally {
      hold.busy = false;
    }
  }

  private inputRequired(hold: Hold): BridgeOutcome {
    hold.round += 1;
    this.opts.table.update(hold.ex, { round: hold.round });
    const inputRequests: Record<string, { method: string; params?: Record<string, unknown> }> = {};
    for (const [key, q] of hold.questions) inputRequests[key] = { method: q.method, ...(q.params !== undefined ? { params: q.params } : { params: {} }) };
    const requestState = this.opts.sealer.seal({ exchange: hold.ex.id, round: hold.round, target: hold.target, caller: hold.caller, issuedAt: Date.now() });
    clearTimeout(hold.expiry);
    hold.expiry = setTimeout(() => this.release(hold, `the agent did not retry within ${Math.round(this.holdMs / 1000)}s`), this.holdMs);
    hold.expiry.unref?.();
    return { result: { resultType: 'input_required', inputRequests, requestState } };
  }

  /** Ends a hold early: its open questions are declined, what the server answers later is dropped. */
  private release(hold: Hold, why: string): void {
    if (!this.holds.has(hold.ex.id)) return;
    this.forget(hold);
    this.expired.set(hold.ex.id, why);
    if (this.expired.size > TOMBSTONES) this.expired.delete(this.expired.keys().next().value!);
    this.opts.table.update(hold.ex, { reason: `held for input: ${why}; the server's requests were declined` });
    for (const q of hold.questions.values()) q.settle(declineFor(q.method, why));
    hold.questions.clear();
    hold.wake?.();
  }

  private forget(hold: Hold): void {
    clearTimeout(hold.expiry);
    clearTimeout(hold.batch);
    this.holds.delete(hold.ex.id);
  }
}
