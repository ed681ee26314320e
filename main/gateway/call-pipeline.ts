// The call pipeline: decide → ask → forward → record, one exchange at a time. Everything it
// touches comes in through small ports (the roles of ports.ts: the catalog's surface, the
// servers' channels; and the policy, the approvals broker), so it runs in a unit test with a
// fake upstream.
// Every path through it closes its exchange with an outcome and, for a tool call, says who
// decided; a decision event is emitted for the audit store and the window as before.
import { shadowWords } from '../policy/replay';
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Policy } from '../policy/engine';
import type { ApprovalBroker } from '../approvals/broker';
import { actionFingerprint } from '../policy/fingerprint';
import type { RpcReply } from '../protocol/exchange-channel';
import { oneLine } from '../base/one-line';
import { GatewayError } from './errors';
import type { DecisionEvent } from './decision-event';
import { CancelledError, type Decider, type Exchange, type ExchangeOutcome, type ExchangeTable, type Verdict } from './exchanges';
import { CAPABILITIES_TOOL } from './tool-surface';
import { isInputRequired, type UpstreamInput } from './upstream-input';
import { CALL_TOOL, SEARCH_TOOL } from './lazy-surface';
import { toAdvertised } from '../protocol/tool-names';
import { foldGates, maskCredentials, type DataFinding, type DataGuard } from '../data/data-guard';
import { governForward } from './forward-policy';
import type { Redactor } from '../secrets/redactor';
import type { CapabilitiesSource, GatewayEvents, ProgressSink, ServerDirectory, ToolDirectory, UpstreamPort } from './ports';

export type { DecisionEvent } from './decision-event';

export type { UpstreamLookup, UpstreamPort, ProgressSink } from './ports';

export interface PipelinePorts {
  session: string;
  table: ExchangeTable;
  policy: Policy;
  broker: ApprovalBroker;
  redactor: Redactor;
  approvalTimeoutMs(): number;
  /** The surface names are resolved on, and what tool pinning holds back (the Catalog). */
  tools: ToolDirectory;
  /** Where a call goes, and the start-up barrier a name not listed yet waits behind (Upstreams). */
  servers: Pick<ServerDirectory, 'upstream' | 'describeServer' | 'firstStarts'>;
  /** gatehouse.capabilities' report (the Gateway). */
  capabilities: CapabilitiesSource;
  /** Where decisions are told (the Gateway). */
  events: Pick<GatewayEvents, 'decided'>;
  /** A new-era server's input_required rounds (upstream-input.ts). */
  inputRounds?: UpstreamInput;
  /** The data scanning step and the trifecta guard (main/data/, docs/data.md). */
  data?: DataGuard;
}

/** What a result is checked against before it leaves: the approval a held result asks for. */
type HoldBase = Omit<Parameters<ApprovalBroker['request']>[0], 'reason' | 'rule' | 'kind'>;

function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}

/** Longest error or DENY reason on a call's one line (what the agent reads after `DENY: `). */
const ERROR_LINE_MAX = 300;

class UpstreamTimeout extends Error {}

const NO_MORE: { rule?: string; answeredBy?: string } = Object.freeze({});

/** The longest delay setTimeout honours (larger values fire at once). */
const MAX_TIMER_MS = 2_147_483_647;

export class CallPipeline {
  constructor(private readonly ports: PipelinePorts) {}

  /** A downstream `tools/call` request as it arrived: checked, then run. */
  async toolsCall(ex: Exchange, params: unknown, sink?: (token: string | number) => ProgressSink | undefined): Promise<CallToolResult> {
    const parsed = CallToolRequestSchema.safeParse({ method: 'tools/call', params });
    if (!parsed.success) {
      const message = `Invalid tools/call request: ${z.prettifyError(parsed.error).replace(/\s+/g, ' ')}`;
      this.ports.table.close(ex, 'error', { error: message });
      throw new GatewayError(ErrorCode.InvalidParams, message);
    }
    const p = parsed.data.params;
    const token = p._meta?.progressToken;
    return this.callTool(ex, p.name, p.arguments ?? {}, p._meta as Record<string, unknown> | undefined, token !== undefined ? sink?.(token) : undefined);
  }

  /**
   * Resolve, decide, (ask,) forward. Used by tools/call of every downstream session, the
   * legacy envelope and the UI's tool console. Returns the upstream result as it came, or a
   * tool error (`isError: true`) for a denial or an unavailable server; a JSON-RPC error
   * (unknown tool, the server's own error) is thrown as a GatewayError.
   */
  async callTool(ex: Exchange, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>, progress?: ProgressSink): Promise<CallToolResult> {
    const { table } = this.ports;
    let target = this.ports.tools.currentSurface().lookup.get(name);
    if (!target) {
      await this.ports.servers.firstStarts();
      // Cancelled (or its agent gone) while it waited: it is asked of nobody and never sent.
      const cancelled = table.signal(ex);
      if (cancelled.aborted) {
        table.close(ex, 'cancelled');
        throw cancelled.reason instanceof CancelledError ? cancelled.reason : new CancelledError('cancelled');
      }
      target = this.ports.tools.currentSurface().lookup.get(name);
    }
    const heldTool = target ? undefined : this.ports.tools.heldFor(name);
    const heldServer = target || heldTool ? undefined : this.ports.tools.heldServerFor(name);
    const held = heldTool ?? heldServer;
    if (held) {
      // Held back by tool pinning or the launch gate: the agent is told why, and the exchange records the denial.
      const reason = heldServer
        ? heldServer.reason
        : `tool ${held.canonical} ${held.reason} (a person reviews it in the Gatehouse window or with \`gatehouse trust accept\`)`;
      table.update(ex, { tool: held.canonical, advertised: name, server: held.server });
      table.decide(ex, 'DENY', 'gateway', { reason });
      this.ports.events.decided({
        session: this.ports.session, agentSession: ex.agentSession, exchange: ex.id, tool: held.canonical, advertisedName: name,
        server: held.server, fingerprint: actionFingerprint(held.canonical, args), args: this.ports.redactor.redactJson(args),
        ts: Date.now(), decision: 'DENY', decidedBy: 'gateway', outcome: 'denied', reason,
      });
      table.close(ex, 'denied');
      return textResult(`DENY: ${reason}`, true);
    }
    if (!target) {
      // MCP 2025-11-25 (server/tools, Error Handling): unknown tools are a protocol error.
      const message = `Unknown tool: ${name}`;
      table.close(ex, 'error', { advertised: name, error: message });
      throw new GatewayError(ErrorCode.InvalidParams, message);
    }
    if (target.canonical === CALL_TOOL) return this.unwrapCall(ex, args, meta, progress);
    table.update(ex, { tool: target.canonical, advertised: name, server: target.server });
    const agent = ex.agentSession ?? 'console';
    const flowTool = { tool: target.canonical, server: target.server, annotations: target.tool.annotations };
    const data = target.canonical === CAPABILITIES_TOOL ? undefined : this.ports.data;
    const scanned = data ? await data.gate(agent, flowTool, args) : undefined;
    if (scanned) this.found(ex, scanned.findings, data!.labels(agent));
    // A credential in the arguments is masked in what a person, the window and the audit see.
    const redactedArgs = this.ports.redactor.redactJson(maskCredentials(args, scanned?.findings ?? []));
    const fingerprint = actionFingerprint(target.canonical, args);
    const base = {
      session: this.ports.session,
      agentSession: ex.agentSession,
      exchange: ex.id,
      tool: target.canonical,
      advertisedName: name,
      server: target.server,
      fingerprint,
      args: redactedArgs,
    };
    // A `shadow: true` rule's verdict goes on record (audit, Traffic), never to the agent.
    let shadowNote = '';
    // Literals of one shape, no spreads: a spread after a spread made a dictionary-mode copy of
    // the event per call (~3 KB of a call's allocation, docs/gateway-performance.md).
    const decided = (decision: Verdict, decidedBy: Decider, outcome: DecisionEvent['outcome'], why: string, more: { rule?: string; answeredBy?: string } = NO_MORE) => {
      const reason = why + shadowNote;
      const patch: Pick<Exchange, 'reason' | 'rule' | 'answeredBy'> = { reason };
      if ('rule' in more) patch.rule = more.rule;
      if ('answeredBy' in more) patch.answeredBy = more.answeredBy;
      table.decide(ex, decision, decidedBy, patch);
      this.ports.events.decided({
        session: base.session,
        agentSession: base.agentSession,
        exchange: base.exchange,
        tool: base.tool,
        advertisedName: base.advertisedName,
        server: base.server,
        fingerprint: base.fingerprint,
        args: base.args,
        ts: Date.now(),
        decision,
        decidedBy,
        outcome,
        reason,
        rule: more.rule,
        answeredBy: more.answeredBy,
      });
    };

    if (target.canonical === CAPABILITIES_TOOL) {
      decided('ALLOW', 'gateway', 'allowed', 'the capabilities tool is always callable');
      // The same start-up barrier as tools/list: called right after initialize, the report
      // listed no tool of a server still on its first start while tools/list, asked at the same
      // moment, waited for it and listed them all.
      await this.ports.servers.firstStarts();
      const report = this.ports.capabilities.capabilitiesReport() as unknown as Record<string, unknown>;
      // This session's flow labels (docs/data.md): what the trifecta guard holds it to.
      if (this.ports.data) report.flow = { policy: this.ports.data.flow.mode, session_labels: this.ports.data.labels(agent) };
      table.close(ex, 'ok');
      return { content: [{ type: 'text', text: JSON.stringify(report, null, 2) }], structuredContent: report };
    }

    if (target.canonical === SEARCH_TOOL) {
      const { query, limit } = args;
      if (typeof query !== 'string' || query.trim() === '' || (limit !== undefined && (typeof limit !== 'number' || !Number.isFinite(limit)))) {
        const message = `${toAdvertised(SEARCH_TOOL)} expects { query: non-empty string, limit?: number }, got ${oneLine(JSON.stringify(redactedArgs), 120)}`;
        table.close(ex, 'error', { error: message });
        throw new GatewayError(ErrorCode.InvalidParams, message);
      }
      decided('ALLOW', 'gateway', 'allowed', 'the search tool is always callable');
      await this.ports.servers.firstStarts();
      const tools = this.ports.tools.searchTools(query, limit);
      table.close(ex, 'ok');
      const report = { query, tools };
      return { content: [{ type: 'text', text: JSON.stringify(report, null, 2) }], structuredContent: report };
    }

    let verdict: ReturnType<Policy['decide']>;
    try {
      verdict = this.ports.policy.decide({ tool: target.canonical, server: target.server, annotations: target.tool.annotations, args, ...(ex.agentName !== undefined ? { agent: ex.agentName } : {}) });
    } catch (err) {
      verdict = { decision: 'DENY', reason: `policy error: ${(err as Error).message}` };
    }
    if (verdict.shadow) shadowNote = ` [${shadowWords(verdict.shadow)}]`;
    // The data gates (a credential in the arguments, the trifecta guard) can only make a call stricter.
    const gate = foldGates(scanned?.gates ?? []);
    if (gate && verdict.decision !== 'DENY') {
      verdict =
        gate.decision === 'DENY' || verdict.decision === 'ALLOW'
          ? gate
          : { decision: 'APPROVAL', reason: `${verdict.reason}; and ${gate.reason}`, rule: [verdict.rule, gate.rule].filter(Boolean).join(', ') };
    }
    if (verdict.decision === 'DENY') {
      decided('DENY', 'rule', 'denied', verdict.reason, { rule: verdict.rule });
      table.close(ex, 'denied');
      return textResult(`DENY: ${oneLine(verdict.reason, ERROR_LINE_MAX)}`, true);
    }
    let answeredBy: string | undefined;
    let outcome: DecisionEvent['outcome'] = 'allowed';
    let decidedBy: Decider = 'rule';
    if (verdict.decision === 'APPROVAL') {
      // The verdict is known now; who decides is not, until the person (or the timeout) does.
      table.update(ex, { decision: 'APPROVAL', reason: verdict.reason, ...(verdict.rule !== undefined ? { rule: verdict.rule } : {}) });
      const answer = await this.ports.broker.request(
        {
          ...base,
          ...(ex.agentName !== undefined ? { agentName: ex.agentName } : {}),
          ...(ex.agentVersion !== undefined ? { agentVersion: ex.agentVersion } : {}),
          annotations: target.tool.annotations,
          reason: verdict.reason,
          rule: verdict.rule,
          kind: 'tool',
          // The trifecta guard's gate asks a person each time: no session grant answers it (docs/data.md).
          ...(gate?.perCall ? { perCall: true } : {}),
        },
        { timeoutMs: this.ports.approvalTimeoutMs(), signal: table.signal(ex) },
      );
      answeredBy = answer.by;
      if (!answer.approved) {
        const how = answer.how === 'timeout' || answer.how === 'no_approver' || answer.how === 'cancelled' ? answer.how : 'denied';
        const by: Decider = how === 'denied' ? 'person' : how;
        // A data gate's reason stays on the row (Traffic says why a person was asked: docs/data.md).
        const reason = gate ? `${answer.reason} (asked because ${gate.reason})` : answer.reason;
        decided('APPROVAL', by, how, reason, { rule: verdict.rule, answeredBy });
        if (how === 'cancelled') {
          table.close(ex, 'cancelled');
          throw new CancelledError(answer.reason);
        }
        table.close(ex, 'denied');
        return textResult(`DENY: ${oneLine(reason, ERROR_LINE_MAX)}`, true);
      }
      outcome = 'approved';
      decidedBy = 'person';
    }
    const upstream = this.ports.servers.upstream(target.server);
    if ('unavailable' in upstream) {
      decided(verdict.decision, decidedBy, 'unavailable', upstream.unavailable, { rule: verdict.rule, answeredBy });
      table.close(ex, 'unavailable', { error: upstream.unavailable });
      return textResult(upstream.unavailable, true);
    }
    decided(verdict.decision, decidedBy, outcome, verdict.reason, { rule: verdict.rule, answeredBy });

    const params: Record<string, unknown> = { name: target.upstreamName, arguments: args };
    const upstreamMeta: Record<string, unknown> = meta ? { ...meta } : {};
    delete upstreamMeta.progressToken; // the agent's token is mapped to one of ours (see send)
    const hold: HoldBase = { ...base, annotations: target.tool.annotations };
    const inspect = data ? (r: Record<string, unknown>) => this.inspectResult(ex, r, hold, (decision, by, how, reason, more) => decided(decision, by, how, reason, more)) : undefined;
    const result = await this.send(ex, target.server, upstream, 'tools/call', params, upstreamMeta, progress, inspect);
    if (!result) return textResult(this.failureText(ex, target.server, upstream.timeoutMs), true);
    if (data && ex.outcome !== 'denied') data.received(agent, flowTool);
    return result as CallToolResult;
  }

  /**
   * gatehouse_call_tool: the named tool is called through this same pipeline, on this same
   * exchange, so everything (pinning, policy, approvals, the audit) sees the real tool, and the
   * exchange records it, exactly as for a direct call. It cannot call itself.
   */
  private unwrapCall(ex: Exchange, args: Record<string, unknown>, meta?: Record<string, unknown>, progress?: ProgressSink): Promise<CallToolResult> {
    const { name, arguments: inner } = args;
    const innerOk = inner === undefined || (inner !== null && typeof inner === 'object' && !Array.isArray(inner));
    const self = typeof name === 'string' && this.ports.tools.currentSurface().lookup.get(name)?.canonical === CALL_TOOL;
    if (typeof name !== 'string' || name === '' || !innerOk || self) {
      const message = self
        ? `${toAdvertised(CALL_TOOL)} cannot call itself; name the tool to call`
        : `${toAdvertised(CALL_TOOL)} expects { name: tool name, arguments?: object }, got ${oneLine(JSON.stringify(this.ports.redactor.redactJson(args)), 120)}`;
      this.ports.table.close(ex, 'error', { advertised: toAdvertised(CALL_TOOL), error: message });
      return Promise.reject(new GatewayError(ErrorCode.InvalidParams, message));
    }
    return this.callTool(ex, name, (inner as Record<string, unknown> | undefined) ?? {}, meta, progress);
  }

  /** prompts/get, resources/read and completion/complete under the policy of what they read (forward-policy.ts). */
  async forward(ex: Exchange, serverId: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.ports.table.update(ex, { server: serverId });
    if ((await governForward(this.ports, ex, serverId, method, params)) === 'no_values') return { completion: { values: [], total: 0, hasMore: false } };
    const upstream = this.ports.servers.upstream(serverId);
    if ('unavailable' in upstream) {
      this.ports.table.close(ex, 'unavailable', { error: upstream.unavailable });
      throw new GatewayError(ErrorCode.InternalError, upstream.unavailable);
    }
    const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
    const { _meta: _drop, ...rest } = params;
    const hold: HoldBase = { session: this.ports.session, agentSession: ex.agentSession, exchange: ex.id, tool: `${serverId}.${method}`, server: serverId, args: this.ports.redactor.redactJson(rest) };
    const inspect = this.ports.data ? (r: Record<string, unknown>) => this.inspectResult(ex, r, hold) : undefined;
    const result = await this.send(ex, serverId, upstream, method, rest, { ...meta }, undefined, inspect);
    if (result && ex.outcome === 'denied') throw new GatewayError(ErrorCode.InvalidRequest, ex.error ?? 'the result was held and not released');
    if (!result) throw new GatewayError(ex.outcome === 'timeout' ? ErrorCode.RequestTimeout : ErrorCode.InternalError, this.failureText(ex, serverId, upstream.timeoutMs));
    return result;
  }

  /** Adds scanner findings (and the session's flow labels) to the exchange: stored, and badged in Traffic. */
  private found(ex: Exchange, findings: readonly DataFinding[], flow?: string[]): void {
    if (findings.length === 0 && !flow?.length) return;
    this.ports.table.update(ex, { ...(findings.length ? { findings: [...(ex.findings ?? []), ...findings] } : {}), ...(flow?.length ? { flow } : {}) });
  }

  /**
   * A result before it leaves for the agent (docs/data.md): findings recorded; credentials
   * masked, or (`results: hold`) the result waits for a person, who sees what was found and
   * where, masked. Not released (denied, timed out, no approver): the agent gets a DENY result.
   */
  private async inspectResult(
    ex: Exchange,
    result: Record<string, unknown>,
    base: HoldBase,
    decided?: (decision: Verdict, by: Decider, outcome: DecisionEvent['outcome'], reason: string, more: { rule?: string; answeredBy?: string }) => void,
  ): Promise<{ result: Record<string, unknown>; denied?: string }> {
    const verdict = await this.ports.data!.inspectResult(result);
    this.found(ex, verdict.findings);
    if (!verdict.hold) return { result: verdict.result };
    const rule = 'policy.data.results';
    const answer = await this.ports.broker.request({ ...base, reason: verdict.hold, rule, kind: 'tool' }, { timeoutMs: this.ports.approvalTimeoutMs(), signal: this.ports.table.signal(ex) });
    const how = answer.approved ? 'approved' : answer.how === 'timeout' || answer.how === 'no_approver' || answer.how === 'cancelled' ? answer.how : 'denied';
    const by: Decider = how === 'approved' || how === 'denied' ? 'person' : how;
    decided?.('APPROVAL', by, how, verdict.hold, { rule, answeredBy: answer.by });
    if (how === 'cancelled') throw new CancelledError(answer.reason);
    if (answer.approved) return { result: verdict.result };
    return { result: textResult(`DENY: result held (${oneLine(verdict.hold, ERROR_LINE_MAX)}): ${oneLine(answer.reason, ERROR_LINE_MAX)}`, true) as Record<string, unknown>, denied: answer.reason };
  }

  private failureText(ex: Exchange, serverId: string, timeoutMs: number): string {
    if (ex.outcome === 'timeout') return `server '${serverId}' did not answer within ${timeoutMs / 1000}s`;
    return `server '${serverId}' went away during the call: ${this.ports.servers.describeServer(serverId)}`;
  }

  /**
   * Sends one request upstream through the server's channel and closes the exchange from its
   * reply. Resolves with the result, or undefined when the call timed out or the server went
   * away (the exchange says which); throws the server's JSON-RPC error as a GatewayError, and
   * CancelledError when the agent cancelled (nothing is sent back then: MCP cancellation).
   */
  private async send(
    ex: Exchange,
    serverId: string,
    upstream: { port: UpstreamPort; timeoutMs: number; era?: string },
    method: string,
    params: Record<string, unknown>,
    meta: Record<string, unknown>,
    progress?: ProgressSink,
    inspect?: (result: Record<string, unknown>) => Promise<{ result: Record<string, unknown>; denied?: string }>,
  ): Promise<Record<string, unknown> | undefined> {
    const { table } = this.ports;
    const timeoutMs = upstream.timeoutMs;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The request timeout restarts on each progress notification (as the SDK's resetTimeoutOnProgress).
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new UpstreamTimeout(`no answer within ${timeoutMs / 1000}s`)), Math.min(timeoutMs, MAX_TIMER_MS));
    };
    arm();
    // The exchange's cancellation aborts this controller: one per send, no second signal.
    const offCancel = table.whenCancelled(ex, (reason) => controller.abort(reason));
    const sending = new Set<Promise<void>>();
    let upstreamToken: string | undefined;
    if (progress) {
      upstreamToken = `gatehouse-progress-${ex.id}`;
      meta.progressToken = upstreamToken;
    }
    if (Object.keys(meta).length > 0) params._meta = meta;
    if (upstream.era) table.update(ex, { upstreamEra: upstream.era });
    try {
      let reply = await upstream.port.request(method, params, { stamp: ex, signal: controller.signal }, (id) =>
        table.sent(
          ex,
          serverId,
          id,
          progress && upstreamToken
            ? {
                downstream: progress.token,
                upstream: upstreamToken,
                sink: (n) => {
                  arm();
                  const sent = progress.send({ ...n, progressToken: progress.token }).catch(() => {});
                  sending.add(sent);
                  void sent.then(() => sending.delete(sent));
                },
              }
            : undefined,
        ),
      );
      if (this.ports.inputRounds && isInputRequired(reply)) reply = await this.inputRounds(ex, serverId, upstream.port, method, params, reply, controller.signal, arm, () => clearTimeout(timer));
      // Progress already on its way goes out before the result does.
      if (sending.size > 0) await Promise.all(sending);
      if ('error' in reply) {
        let e = reply.error ?? { code: ErrorCode.InternalError, message: 'malformed error' };
        // The server's words reach the agent and the stored exchange (`error`): screened as a result is (docs/data.md).
        if (this.ports.data) {
          const screened = await this.ports.data.screen({ error: e });
          this.found(ex, screened.findings);
          e = this.ports.redactor.redactJson(screened.value.error) as typeof e;
        }
        table.close(ex, 'error', { error: oneLine(String(e.message), ERROR_LINE_MAX) });
        throw new GatewayError(typeof e.code === 'number' ? e.code : ErrorCode.InternalError, String(e.message), e.data);
      }
      let result = (reply.result ?? {}) as Record<string, unknown>;
      if (inspect) {
        clearTimeout(timer); // the server has answered: a held result waits for a person, not for it
        const checked = await inspect(result);
        if (checked.denied !== undefined) {
          table.close(ex, 'denied', { error: oneLine(`result held and not released: ${checked.denied}`, ERROR_LINE_MAX) });
          return checked.result;
        }
        result = checked.result;
      }
      table.close(ex, result.isError === true ? 'error' : 'ok', result.isError === true ? { error: 'the tool returned an error result' } : {});
      return result;
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      const outcome: ExchangeOutcome =
        err instanceof UpstreamTimeout ? 'timeout' : err instanceof CancelledError ? 'cancelled' : err instanceof McpError && err.code === ErrorCode.ConnectionClosed ? 'aborted' : 'error';
      table.close(ex, outcome, { error: oneLine((err as Error).message ?? String(err), ERROR_LINE_MAX) });
      if (outcome === 'cancelled') throw err;
      if (outcome === 'error') throw new GatewayError(ErrorCode.InternalError, (err as Error).message ?? String(err));
      return undefined;
    } finally {
      clearTimeout(timer);
      offCancel();
    }
  }

  /** A new-era server asked for input: the rounds run to its final reply (a question that fails closes the call). */
  private async inputRounds(ex: Exchange, serverId: string, port: UpstreamPort, method: string, params: Record<string, unknown>, first: RpcReply, signal: AbortSignal, rearm: () => void, pause: () => void): Promise<RpcReply> {
    try {
      return await this.ports.inputRounds!.run({ ex, serverId, params, first, signal, rearm, pause, resend: (p, onId) => port.request(method, p, { stamp: ex, signal }, onId) });
    } catch (err) {
      if (err instanceof GatewayError) this.ports.table.close(ex, ex.decision === 'DENY' ? 'denied' : 'error', { error: oneLine(err.message, ERROR_LINE_MAX) });
      throw err;
    }
  }
}
