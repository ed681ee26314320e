// The reverse bridge (docs/gateway.md, "Upstream eras"): a new-era server (MCP 2026-07-28)
// does not send server→client requests; it answers a call with an `input_required` result
// whose `inputRequests` name what it needs (elicitation, sampling, roots). For the agent the
// call is still one request: the gateway asks each question through the one governed path
// (ServerRequests.handle: policy.sampling, approvals, the agent session that made the call, else
// the approvals inbox; each question a `server_request` exchange with `parent` = the call), then
// calls the server again with `inputResponses` and the server's own `requestState` — which
// stays inside the gateway — round after round, until the server gives a final result. An
// old-era agent sees ordinary server→client requests; a new-era agent's questions are turned
// into its own input_required by the downstream bridge behind `sessions.routeFor`: no special
// case here.
import { ErrorCode, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { RpcReply } from '../protocol/exchange-channel';
import { GatewayError } from './errors';
import type { Exchange } from './exchanges';

/** Rounds one call may take before the gateway gives up on a server that keeps asking. */
export const MAX_INPUT_ROUNDS = 16;

/** The methods a server may embed in `inputRequests`. */
const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/** The one governed handling of a server→client request (ServerRequests.handle). */
/** `inputKey`: the server's own key for the question, kept when it reaches a new-era agent. */
export type AskOne = (serverId: string, method: string, params: Record<string, unknown> | undefined, parent: Exchange, signal: AbortSignal, inputKey?: string) => Promise<Record<string, unknown>>;

export function isInputRequired(reply: RpcReply): reply is Extract<RpcReply, { result: Record<string, unknown> }> {
  return 'result' in reply && (reply.result as { resultType?: unknown } | undefined)?.resultType === 'input_required';
}

export interface InputRoundsArgs {
  ex: Exchange;
  serverId: string;
  /** The params of the call as first sent (with its `_meta`). */
  params: Record<string, unknown>;
  first: RpcReply;
  /** Sends the call again with these extra params; `onId` names the new leg. */
  resend(params: Record<string, unknown>, onId: (id: RequestId) => void): Promise<RpcReply>;
  /** While the questions are asked the server is not working: its timeout is paused, and re-armed for each leg. */
  pause(): void;
  rearm(): void;
  signal: AbortSignal;
}

export class UpstreamInput {
  constructor(
    private readonly ask: AskOne,
    private readonly resent: (ex: Exchange, serverId: string, id: RequestId) => void,
  ) {}

  /** Runs the rounds; resolves with the server's final reply (a result or an error). */
  async run(a: InputRoundsArgs): Promise<RpcReply> {
    let reply = a.first;
    const { inputResponses: _r, requestState: _s, ...original } = a.params;
    for (let round = 1; isInputRequired(reply); round++) {
      if (round > MAX_INPUT_ROUNDS) {
        throw new GatewayError(ErrorCode.InternalError, `server '${a.serverId}' still asked for input after ${MAX_INPUT_ROUNDS} rounds; the call was ended`);
      }
      const result = reply.result as { inputRequests?: unknown; requestState?: unknown };
      const requests = parseInputRequests(a.serverId, result.inputRequests);
      const requestState = typeof result.requestState === 'string' ? result.requestState : undefined;
      if (requests.length === 0 && requestState === undefined) {
        throw new GatewayError(ErrorCode.InternalError, `server '${a.serverId}' answered input_required with neither inputRequests nor requestState`);
      }
      a.pause();
      // Questions of one round are asked together (a person may see several inbox cards); the
      // first that fails ends the call with its error: the server cannot go on without it.
      const round$ = new AbortController();
      const onAbort = () => round$.abort(a.signal.reason);
      a.signal.addEventListener('abort', onAbort, { once: true });
      let responses: Record<string, Record<string, unknown>>;
      try {
        const answers = await Promise.all(
          requests.map(async ([key, req]) => {
            try {
              return [key, await this.ask(a.serverId, req.method, req.params, a.ex, round$.signal, key)] as const;
            } catch (err) {
              round$.abort(err);
              throw err;
            }
          }),
        );
        responses = Object.fromEntries(answers);
      } finally {
        a.signal.removeEventListener('abort', onAbort);
      }
      if (a.signal.aborted) throw a.signal.reason;
      a.rearm();
      const retry: Record<string, unknown> = { ...original };
      if (requests.length > 0) retry.inputResponses = responses;
      // The server's requestState goes back byte for byte; the agent never sees it.
      if (requestState !== undefined) retry.requestState = requestState;
      reply = await a.resend(retry, (id) => this.resent(a.ex, a.serverId, id));
    }
    return reply;
  }
}

/** `inputRequests` as [key, {method, params}] pairs; anything else is the server's protocol error, named. */
function parseInputRequests(serverId: string, raw: unknown): Array<[string, { method: string; params?: Record<string, unknown> }]> {
  if (raw === undefined) return [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new GatewayError(ErrorCode.InternalError, `server '${serverId}' sent inputRequests that is not an object (found ${Array.isArray(raw) ? 'an array' : typeof raw})`);
  }
  return Object.entries(raw as Record<string, unknown>).map(([key, v]) => {
    const entry = v as { method?: unknown; params?: unknown } | null;
    if (!entry || typeof entry.method !== 'string' || !INPUT_METHODS.has(entry.method)) {
      const found = entry && typeof entry.method === 'string' ? `'${entry.method}'` : 'no method';
      throw new GatewayError(ErrorCode.InternalError, `server '${serverId}' asked for input '${key}' with ${found}; expected elicitation/create, sampling/createMessage or roots/list`);
    }
    const params = entry.params && typeof entry.params === 'object' && !Array.isArray(entry.params) ? (entry.params as Record<string, unknown>) : undefined;
    return [key, { method: entry.method, ...(params ? { params } : {}) }];
  });
}
