// Server→client requests (sampling, elicitation, roots) and what else a server sends the
// gateway beneath its calls. Each such request is an exchange of its own, opened by the
// server's channel when it arrives (upstreamRoutes), linked to the call in flight that caused
// it, governed (sampling by policy), and either sent on to the agent session that made the
// call, or answered by a person in the approvals inbox when no connected agent can.
import { statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalBroker, AskResult } from '../approvals/broker';
import { SAMPLING_REJECTED_CODE, SAMPLING_REJECTED_MESSAGE } from '../approvals/questions';
import type { Policy } from '../policy/engine';
import { actionFingerprint } from '../policy/fingerprint';
import type { ChannelRoutes } from '../protocol/exchange-channel';
import type { ResolvedProfile } from '../profiles/types';
import type { DataGuard } from '../data/data-guard';
import type { DecisionEvent } from './decision-event';
import type { GatewayEvents, RoutedSession, SessionRegistry } from './ports';
import { GatewayError, toRpcError } from './errors';
import type { Exchange, ExchangeTable } from './exchanges';

export const GATEWAY_NAME = 'gatehouse';
export const GATEWAY_VERSION = '0.1.0';

/** Server→client methods that are exchanges of their own. */
const SERVER_REQUESTS = new Set(['sampling/createMessage', 'elicitation/create', 'roots/list']);
let serverRequestCounter = 0;

export interface ServerRequestDeps {
  session: string;
  profile: ResolvedProfile;
  policy: Policy;
  broker: ApprovalBroker;
  table: ExchangeTable;
  sessions: SessionRegistry;
  events: Pick<GatewayEvents, 'decided'>;
  /** Masks credentials in a server's words (main/data/), for what is stored and shown: decision args, a person's question. */
  data?: Pick<DataGuard, 'masked'>;
}

export class ServerRequests {
  /** The key a new-era server gave a question (inputRequests), by the question's exchange. */
  private readonly inputKeys = new WeakMap<Exchange, string>();
  constructor(private readonly deps: ServerRequestDeps) {}

  /**
   * Routes for a server's channel: its requests open exchanges; progress for a gateway token goes
   * to its call. A new-era server's channel has no SDK v1 client beneath it to handle the other
   * notifications (log messages on a call's stream, list and resource changes on the listen
   * stream): they are taken here and sent on to the sessions.
   */
  upstreamRoutes(serverId: string, era: 'old' | 'new' = 'old'): ChannelRoutes {
    const { table, sessions } = this.deps;
    const newEra: Record<string, (params: Record<string, unknown>) => void> = {
      'notifications/message': (p) => sessions.log(serverId, p as never),
      'notifications/resources/updated': (p) => sessions.resourceUpdated(p as { uri: string }),
      'notifications/resources/list_changed': () => sessions.resourceListChanged(serverId),
      'notifications/prompts/list_changed': () => sessions.promptListChanged(),
    };
    return {
      ledger: table,
      request: (msg) => {
        if (!SERVER_REQUESTS.has(msg.method)) return undefined;
        const parent = table.newestInFlight(serverId);
        const ex = table.openExchange({
          id: `${parent ? `${parent.id}>` : `${serverId}#`}${msg.method.split('/')[0]}-${String(msg.id)}-${++serverRequestCounter}`,
          kind: 'server_request',
          session: this.deps.session,
          agentSession: parent?.agentSession,
          server: serverId,
          upstreamId: msg.id,
          method: msg.method,
          tool: msg.method,
          parent: parent?.id,
        });
        // The SDK client may refuse a malformed request before any handler runs (its schema): the
        // ledger ends the exchange when that answer goes out (ExchangeTable.leg).
        return { stamp: ex };
      },
      notification: (msg) => {
        const relay = era === 'new' ? newEra[msg.method] : undefined;
        if (relay) return { consume: true, handle: () => relay((msg.params ?? {}) as Record<string, unknown>) };
        if (msg.method !== 'notifications/progress') return undefined;
        const token = (msg.params as { progressToken?: string | number } | undefined)?.progressToken;
        if (token === undefined) return undefined;
        const ex = table.byProgress(serverId, token);
        if (!ex) return undefined;
        const { progressToken: _t, ...rest } = msg.params as Record<string, unknown>;
        return { stamp: ex, consume: true, handle: () => table.progressSink(ex)?.(rest) };
      },
    };
  }

  private exchangeOf(serverId: string, requestId: RequestId, method: string): Exchange {
    return (
      this.deps.table.byServerRequest(serverId, requestId) ??
      // Not seen by the channel (cannot happen with a gateway client): an exchange all the same.
      this.deps.table.openExchange({ kind: 'server_request', session: this.deps.session, server: serverId, upstreamId: requestId, method, tool: method })
    );
  }

  /** Runs a server→client request's handler and closes its exchange from the result. */
  private async run<T>(ex: Exchange, fn: () => Promise<T>): Promise<T> {
    try {
      const result = await fn();
      const declined = (result as { action?: string } | undefined)?.action;
      this.deps.table.close(ex, declined === 'decline' || declined === 'cancel' ? 'denied' : 'ok');
      return result;
    } catch (err) {
      const e = toRpcError(err);
      this.deps.table.close(ex, ex.decision === 'DENY' || ex.decidedBy === 'person' ? 'denied' : 'error', { error: e.message });
      throw err instanceof GatewayError ? err : new GatewayError(e.code, e.message, e.data);
    }
  }

  /** Sends a server's request on to an agent session, in the stream of the call that caused it. */
  private async toSession(target: RoutedSession, ex: Exchange, method: string, params: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    const parent = ex.parent ? this.deps.table.get(ex.parent) : undefined;
    const related = parent && parent.agentSession === target.id ? parent.downstreamId : undefined;
    const inputKey = this.inputKeys.get(ex);
    const reply = await target.channel.request(method, params as Record<string, unknown> | undefined, {
      stamp: ex,
      signal,
      ...(related !== undefined ? { relatedRequestId: related } : {}),
      // A new-era server's key for this question: a new-era agent sees it under that name (input-bridge.ts).
      ...(inputKey !== undefined ? { inputKey } : {}),
    });
    if ('error' in reply) throw new GatewayError(reply.error.code, reply.error.message, reply.error.data);
    return reply.result;
  }

  /**
   * A server→client request (sampling, elicitation) that no connected client can answer goes
   * to a person through the approvals inbox, naming the server and the call that caused it.
   * The decision is audited like a tool's: outcome answered / declined / timeout / cancelled /
   * no_approver.
   */
  private async askPerson(
    kind: 'sampling' | 'elicitation',
    serverId: string,
    ex: Exchange,
    base: Omit<DecisionEvent, 'decision' | 'outcome' | 'reason' | 'ts'>,
    verdict: { decision: DecisionEvent['decision']; reason: string; rule?: string },
    params: unknown,
    signal: AbortSignal,
  ): Promise<AskResult> {
    const parent = ex.parent ? this.deps.table.get(ex.parent) : undefined;
    const during = parent ? ` during ${parent.tool} (${parent.id})` : '';
    const reason =
      kind === 'sampling'
        ? `server '${serverId}' asks for an LLM completion${during}, and no connected agent can sample: write the reply or decline`
        : `server '${serverId}' asks for input${during}, and no connected agent can ask its user: answer or decline`;
    const res = await this.deps.broker.ask(
      {
        session: this.deps.session,
        agentSession: parent?.agentSession,
        exchange: base.exchange,
        tool: base.tool,
        server: serverId,
        args: base.args,
        // What a person sees: the request as sent, with the profile's secrets redacted.
        question: base.args,
        reason,
        rule: verdict.rule,
        kind,
        triggerTool: parent?.tool,
        fingerprint: base.fingerprint,
      },
      { timeoutMs: this.deps.profile.policy.approvalTimeoutS * 1000, signal },
    );
    const decidedBy = res.answered ? 'person' : res.how === 'declined' ? 'person' : res.how;
    this.deps.table.decide(ex, verdict.decision, decidedBy, { rule: verdict.rule, answeredBy: res.by, reason: res.answered ? `answered by ${res.by}` : res.reason });
    this.deps.events.decided({
      ...base,
      ts: Date.now(),
      decision: verdict.decision,
      decidedBy,
      outcome: res.answered ? 'answered' : res.how,
      reason: res.answered ? `answered by ${res.by}` : res.reason,
      rule: verdict.rule,
      answeredBy: res.by,
    });
    return res;
  }

  /** The request's record: args as stored in `decisions` and shown on a card, secrets redacted and credentials masked. */
  private async base(serverId: string, ex: Exchange, method: string, params: unknown) {
    return {
      session: this.deps.session,
      agentSession: ex.agentSession,
      exchange: ex.parent ?? ex.id,
      tool: method,
      server: serverId,
      fingerprint: actionFingerprint(method, params),
      args: await this.shown(params),
    };
  }

  private async shown(params: unknown): Promise<unknown> {
    return this.deps.profile.redactor.redactJson(this.deps.data ? await this.deps.data.masked(params) : params);
  }

  /**
   * The governed handling of one server→client request (sampling, elicitation, roots): policy
   * for sampling, the agent session that made the call (`sessions.routeFor`), else a person in
   * the approvals inbox. One path for both eras: the SDK client's handlers of an old-era server
   * call it with the exchange its channel opened for the wire request; the new-era path
   * (upstream-input.ts) calls it once per entry of a server's `inputRequests`, and it opens the
   * `server_request` exchange itself, linked to the call (`parent`). Resolves with the result
   * to give the server; throws a GatewayError (the exchange closed either way).
   */
  handle(
    serverId: string,
    method: string,
    params: Record<string, unknown> | undefined,
    parent: Exchange | undefined,
    signal: AbortSignal,
    opened?: Exchange,
    inputKey?: string,
  ): Promise<Record<string, unknown>> {
    const ex = opened ?? this.openQuestion(serverId, method, parent);
    if (inputKey !== undefined) this.inputKeys.set(ex, inputKey);
    return this.run(ex, () => {
      if (method === 'sampling/createMessage') return this.sampling(serverId, ex, params, signal);
      if (method === 'elicitation/create') return this.elicitation(serverId, ex, params, signal);
      if (method === 'roots/list') return this.roots(ex, signal);
      return Promise.reject(new GatewayError(ErrorCode.MethodNotFound, `server '${serverId}' asked for '${method}', which a client does not answer (expected sampling/createMessage, elicitation/create or roots/list)`));
    });
  }

  /** The exchange of a question that did not come as a wire request (a new-era server's `inputRequests` entry). */
  private openQuestion(serverId: string, method: string, parent: Exchange | undefined): Exchange {
    return this.deps.table.openExchange({
      id: `${parent ? `${parent.id}>` : `${serverId}#`}${method.split('/')[0]}-input-${++serverRequestCounter}`,
      kind: 'server_request',
      session: this.deps.session,
      agentSession: parent?.agentSession,
      server: serverId,
      method,
      tool: method,
      parent: parent?.id,
    });
  }

  private parentOf(ex: Exchange): Exchange | undefined {
    return ex.parent ? this.deps.table.get(ex.parent) : undefined;
  }

  private async sampling(serverId: string, ex: Exchange, params: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    const { table, sessions, broker, policy } = this.deps;
    const decision = policy.decideSampling(serverId);
    const base = await this.base(serverId, ex, 'sampling/createMessage', params);
    const parent = this.parentOf(ex);
    if (decision.decision === 'DENY') {
      table.decide(ex, 'DENY', 'rule', { rule: decision.rule, reason: decision.reason });
      this.deps.events.decided({ ...base, ts: Date.now(), decision: 'DENY', decidedBy: 'rule', outcome: 'denied', reason: decision.reason, rule: decision.rule });
      throw new GatewayError(ErrorCode.InvalidRequest, `DENY: ${decision.reason}`);
    }
    if (!sessions.routeFor(parent, 'sampling')) {
      // No connected client can sample: a person writes the reply (or declines) in the
      // approvals inbox. Their answer is the approval an APPROVAL verdict asks for.
      const res = await this.askPerson('sampling', serverId, ex, base, decision, params, signal);
      if (res.answered) return res.content as Record<string, unknown>;
      if (res.how === 'no_approver') {
        throw new GatewayError(ErrorCode.InvalidRequest, `no connected agent session can answer sampling/createMessage from server '${serverId}', and ${res.reason}`);
      }
      // MCP 2025-11-25 client/sampling, Error Handling: "User rejected sampling request: -1".
      throw new GatewayError(SAMPLING_REJECTED_CODE, SAMPLING_REJECTED_MESSAGE, { reason: res.reason });
    }
    let decidedBy: 'rule' | 'person' = 'rule';
    let answeredBy: string | undefined;
    if (decision.decision === 'APPROVAL') {
      const answer = await broker.request(
        { session: this.deps.session, agentSession: parent?.agentSession, exchange: base.exchange, tool: 'sampling/createMessage', server: serverId, args: base.args, reason: decision.reason, rule: decision.rule, kind: 'sampling' },
        { timeoutMs: this.deps.profile.policy.approvalTimeoutS * 1000, signal },
      );
      if (!answer.approved) {
        const by = answer.how === 'timeout' || answer.how === 'no_approver' || answer.how === 'cancelled' ? answer.how : 'person';
        table.decide(ex, 'APPROVAL', by, { reason: answer.reason, answeredBy: answer.by });
        this.deps.events.decided({ ...base, ts: Date.now(), decision: 'APPROVAL', decidedBy: by, outcome: answer.how === 'timeout' ? 'timeout' : 'denied', reason: answer.reason, answeredBy: answer.by });
        throw new GatewayError(ErrorCode.InvalidRequest, `DENY: ${answer.reason}`);
      }
      decidedBy = 'person';
      answeredBy = answer.by;
    }
    table.decide(ex, decision.decision, decidedBy, { rule: decision.rule, reason: decision.reason, answeredBy });
    this.deps.events.decided({ ...base, ts: Date.now(), decision: decision.decision, decidedBy, outcome: decision.decision === 'ALLOW' ? 'allowed' : 'approved', reason: decision.reason, rule: decision.rule, answeredBy });
    const target = sessions.routeFor(parent, 'sampling');
    if (!target) throw new GatewayError(ErrorCode.InvalidRequest, `no connected agent session can answer sampling/createMessage from server '${serverId}'`);
    return this.toSession(target, ex, 'sampling/createMessage', params, signal);
  }

  private async elicitation(serverId: string, ex: Exchange, params: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    const target = this.deps.sessions.routeFor(this.parentOf(ex), 'elicitation');
    if (target) return this.toSession(target, ex, 'elicitation/create', params, signal);
    // Nobody downstream can ask the user: a person answers in the approvals inbox. Declined,
    // unanswered or nobody to ask: decline (the spec's answer for "not now").
    const base = await this.base(serverId, ex, 'elicitation/create', params);
    const res = await this.askPerson('elicitation', serverId, ex, base, { decision: 'APPROVAL', reason: 'elicitation needs a person' }, params, signal);
    if (res.answered) return res.content as Record<string, unknown>;
    return { action: res.how === 'cancelled' ? 'cancel' : 'decline' };
  }

  private async roots(ex: Exchange, signal: AbortSignal): Promise<Record<string, unknown>> {
    const target = this.deps.sessions.routeFor(this.parentOf(ex), 'roots');
    if (target) return this.toSession(target, ex, 'roots/list', undefined, signal);
    // No agent roots: the server's reach is its roots — the workspace, and the folders its sandbox
    // grants it (an imported filesystem server's own roots became such grants: docs/packages.md).
    const spec = this.deps.profile.servers.find((s) => s.id === ex.server);
    const granted = spec && 'sandbox' in spec && spec.sandbox.mode !== 'off' ? [...spec.sandbox.write, ...spec.sandbox.read].filter((p) => statSync(p, { throwIfNoEntry: false })?.isDirectory()) : [];
    const roots = [{ uri: pathToFileURL(this.deps.profile.workspace).href, name: `${this.deps.profile.name} workspace` }];
    for (const dir of new Set(granted)) if (dir !== this.deps.profile.workspace) roots.push({ uri: pathToFileURL(dir).href, name: path.basename(dir) });
    return { roots };
  }

  /** The SDK client for one old-era upstream server run, declaring what the gateway can route back. */
  createUpstreamClient(serverId: string): Client {
    const { sessions } = this.deps;
    const client = new Client(
      { name: GATEWAY_NAME, version: GATEWAY_VERSION },
      { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } } },
    );
    const viaHandle = (method: string) => (req: { params?: unknown }, extra: { requestId: RequestId; signal: AbortSignal }) => {
      const ex = this.exchangeOf(serverId, extra.requestId, method);
      return this.handle(serverId, method, req.params as Record<string, unknown> | undefined, this.parentOf(ex), extra.signal, ex) as Promise<never>;
    };
    client.setRequestHandler(CreateMessageRequestSchema, viaHandle('sampling/createMessage'));
    client.setRequestHandler(ElicitRequestSchema, viaHandle('elicitation/create'));
    client.setRequestHandler(ListRootsRequestSchema, viaHandle('roots/list'));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => sessions.log(serverId, n.params as never));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => sessions.resourceUpdated(n.params));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => sessions.resourceListChanged(serverId));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => sessions.promptListChanged());
    return client;
  }
}
