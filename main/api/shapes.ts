import type { TerminalRecord } from '../agents/terminal-manager';
// Host state → the contract's shapes (common/host-api.ts). Each mapper names the fields it
// passes on, so nothing the host keeps for itself (a token, a fingerprint, an SDK object) can
// reach a window by accident.
import type { CommandOutput, EventPayload } from '../../common/host-api';
import type { Launch } from '../host';
import type { PendingApproval } from '../approvals/broker';
import { decisionPayload, type DecisionEvent } from '../gateway/decision-event';
import type { ServerStatus } from '../supervisor/types';
import type { MessageRow } from '../audit/types';
import type { TrafficEvent } from '../protocol/types';
import type { ProfileEntry } from '../profiles/registry';

type LaunchSummary = CommandOutput<'launches:list'>[number];
type ServerStatusOut = LaunchSummary['servers'][number];
type PendingOut = CommandOutput<'approvals:list'>[number];
type ProfileSummary = CommandOutput<'profiles:list'>[number];

export function serverStatus(s: ServerStatus): ServerStatusOut {
  const out: ServerStatusOut = {
    id: s.id,
    kind: s.kind,
    state: s.state,
    reason: s.reason,
    run: s.run,
    restarts: s.restarts,
    command: s.command,
    stderrTail: [...s.stderrTail],
    protocolFaults: s.protocolFaults,
  };
  if (s.pid !== undefined) out.pid = s.pid;
  if (s.cwd !== undefined) out.cwd = s.cwd;
  if (s.startedAt !== undefined) out.startedAt = s.startedAt;
  if (s.readyAt !== undefined) out.readyAt = s.readyAt;
  if (s.nextRestartAt !== undefined) out.nextRestartAt = s.nextRestartAt;
  if (s.lastExit) out.lastExit = { ...s.lastExit };
  if (s.exits?.length) out.exits = s.exits.map((e) => ({ ...e, stderrTail: [...e.stderrTail] }));
  if (s.serverInfo) out.serverInfo = { ...s.serverInfo };
  if (s.protocolVersion !== undefined) out.protocolVersion = s.protocolVersion;
  if (s.era !== undefined) out.era = { ...s.era };
  if (s.capabilities) out.capabilities = { ...s.capabilities };
  if (s.toolCount !== undefined) out.toolCount = s.toolCount;
  if (s.instructions !== undefined) out.instructions = s.instructions;
  if (s.auth) out.auth = { ...s.auth };
  if (s.sandbox) out.sandbox = { ...s.sandbox };
  return out;
}

export function launchSummary(launch: Launch): LaunchSummary {
  const out: LaunchSummary = {
    id: launch.id,
    profile: launch.profile.name,
    profileFile: launch.profile.file,
    workspace: launch.profile.workspace,
    workspaceSource: launch.profile.workspaceSource,
    startedAt: launch.startedAt,
    toolSurface: launch.gateway.surfaceKind,
    servers: launch.statuses().map(serverStatus),
    agentSessions: launch.gateway.agentSessions().map((a) => {
      const s: LaunchSummary['agentSessions'][number] = { id: a.id, transport: a.transport, startedAt: a.startedAt };
      if (a.client) s.client = { ...a.client };
      return s;
    }),
  };
  // The URL only: the token travels on the explicit `connect:token` ask, never with a summary.
  if (launch.endpoint) out.gatewayUrl = launch.endpoint.url;
  if (launch.notices.length > 0) out.notices = [...launch.notices];
  return out;
}

export function pendingApproval(p: PendingApproval): PendingOut {
  const out: PendingOut = {
    id: p.id,
    session: p.session,
    kind: p.kind,
    tool: p.tool,
    server: p.server,
    args: p.args,
    reason: p.reason,
    createdAt: p.createdAt,
    expiresAt: p.expiresAt,
  };
  if (p.agentSession !== undefined) out.agentSession = p.agentSession;
  if (p.exchange !== undefined) out.exchange = p.exchange;
  if (p.advertisedName !== undefined) out.advertisedName = p.advertisedName;
  if (p.annotations) out.annotations = { ...p.annotations };
  if (p.rule !== undefined) out.rule = p.rule;
  if (p.question !== undefined) out.question = p.question as PendingOut['question'];
  if (p.triggerTool !== undefined) out.triggerTool = p.triggerTool;
  // The card must not offer a session grant the broker would answer as once (docs/data.md).
  if (p.perCall) out.perCall = true;
  return out;
}

/** The `decision:made` payload: main/gateway/decision-event.ts picks the wire's fields. */
export const decisionEvent: (d: DecisionEvent) => EventPayload<'decision:made'> = decisionPayload;

export function profileSummary(e: ProfileEntry): ProfileSummary {
  const out: ProfileSummary = { name: e.name, file: e.file, servers: [...e.servers] };
  if (e.description !== undefined) out.description = e.description;
  if (e.shadowed) out.shadowed = true;
  if (e.error !== undefined) out.error = e.error;
  else {
    out.toolSurface = e.toolSurface;
    out.policyDefault = e.policyDefault;
  }
  return out;
}

/**
 * A stored message as a TrafficEvent. `seq` is the audit store's cursor (store-wide), and the
 * JSON-RPC id is taken from the message itself: the store keeps it as text.
 */
export function storedTraffic(row: MessageRow): TrafficEvent {
  const out: TrafficEvent = {
    seq: row.seq,
    ts: row.ts,
    session: row.session,
    direction: row.direction,
    kind: row.kind,
    bytes: row.bytes,
    message: row.message,
  };
  if (row.agentSession !== undefined) out.agentSession = row.agentSession;
  if (row.server !== undefined) out.server = row.server;
  if (row.method !== undefined) out.method = row.method;
  const id = (row.message as { id?: unknown } | null)?.id;
  if (typeof id === 'string' || typeof id === 'number') out.id = id;
  else if (row.id !== undefined) out.id = row.id;
  if (row.fault !== undefined) out.fault = row.fault;
  if (row.exchange !== undefined) out.exchange = row.exchange;
  if (row.decision !== undefined) out.decision = row.decision;
  if (row.tool !== undefined) out.tool = row.tool;
  if (row.latencyMs !== undefined) out.latencyMs = row.latencyMs;
  return out;
}

export function terminalSummary(t: TerminalRecord): CommandOutput<'terminals:list'>[number] {
  return {
    id: t.id,
    launchId: t.launchId,
    title: t.title,
    preset: t.preset,
    command: t.command,
    cwd: t.cwd,
    ...(t.pid !== undefined ? { pid: t.pid } : {}),
    cols: t.cols,
    rows: t.rows,
    startedAt: t.startedAt,
    ...(t.exit ? { exit: { ...t.exit } } : {}),
    ...(t.sandbox ? { sandbox: { ...t.sandbox } } : {}),
  };
}
