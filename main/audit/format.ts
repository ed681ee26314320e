// One-line renderings of audit rows for humans (`gatehouse audit …`). Pure functions that
// return strings: the caller decides where they go (main/ never writes to stdout itself).
import { oneLine } from '../base/one-line';
import type { DecisionRow, MessageRow, ServerRunRow, SessionRow, StderrRow, CallRow } from './types';

const pad2 = (v: number): string => String(v).padStart(2, '0');

/** HH:MM:SS.mmm in local time: what a person compares with their own clock. */
export function clockTime(ts: number): string {
  const d = new Date(ts);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** YYYY-MM-DD HH:MM:SS in local time. */
export function dateTime(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

/** Ids are printed short; `--session` accepts any unambiguous prefix, so the short form works as input. */
export const shortId = (id: string): string => (id.length > 8 ? id.slice(0, 8) : id);

const DIRECTION: Record<string, string> = {
  agent_to_gateway: 'agent→gw',
  gateway_to_agent: 'gw→agent',
  gateway_to_server: 'gw→srv',
  server_to_gateway: 'srv→gw',
};

function bytes(n: number): string {
  if (n < 10_000) return `${n}B`;
  if (n < 10_000_000) return `${Math.round(n / 1024)}KiB`;
  return `${Math.round(n / 1048576)}MiB`;
}

/** Longest fault, reason or error on a listing line. */
const LINE_MAX = 120;

export function formatMessage(m: MessageRow): string {
  const where = m.server ?? (m.agentSession ? `agent:${shortId(m.agentSession)}` : '-');
  const cols = [
    clockTime(m.ts),
    shortId(m.session).padEnd(8),
    where.padEnd(14),
    (DIRECTION[m.direction] ?? m.direction).padEnd(8),
    m.kind.padEnd(12),
    (m.method ?? '-').padEnd(26),
    (m.id ?? '-').padEnd(6),
    bytes(m.bytes).padStart(7),
  ];
  const extra: string[] = [];
  if (m.tool) extra.push(m.tool);
  if (m.decision) extra.push(m.decision);
  if (m.latencyMs !== undefined) extra.push(`${m.latencyMs.toFixed(1)}ms`);
  if (m.fault) extra.push(`FAULT: ${oneLine(m.fault, LINE_MAX)}`);
  return `${cols.join('  ')}${extra.length ? `  ${extra.join('  ')}` : ''}`;
}

export function formatStderr(l: StderrRow): string {
  return `${clockTime(l.ts)}  ${shortId(l.session).padEnd(8)}  ${`${l.server}#${l.run}`.padEnd(14)}  ${l.line}`;
}

export function formatDecision(d: DecisionRow): string {
  const cols = [
    clockTime(d.ts),
    shortId(d.session).padEnd(8),
    d.decision.padEnd(8),
    d.outcome.padEnd(11),
    d.tool.padEnd(28),
    d.answeredBy ?? '-',
  ];
  const extra: string[] = [];
  if (d.scope) extra.push(`scope=${d.scope}`);
  if (d.rule) extra.push(`rule=${d.rule}`);
  if (d.waitedMs !== undefined) extra.push(`waited ${Math.round(d.waitedMs)}ms`);
  if (d.reason) extra.push(oneLine(d.reason, LINE_MAX));
  return `${cols.join('  ')}${extra.length ? `  ${extra.join('  ')}` : ''}`;
}

export const CALL_HEADER = `${'TIME'.padEnd(12)}  ${'AGENT'.padEnd(8)}  ${'TOOL'.padEnd(28)}  ${'DECISION'.padEnd(8)}  ${'DECIDED BY'.padEnd(11)}  ${'OUTCOME'.padEnd(11)}  ${'LATENCY'.padStart(8)}  EXCHANGE`;

/** One call (exchange): what was called, the decision and who made it, how it ended. */
export function formatCall(c: CallRow): string {
  const cols = [
    clockTime(c.ts),
    // The agent by name (its per-agent token's, else clientInfo's), else by its session's id prefix.
    (c.agentName ?? (c.agentSession ? shortId(c.agentSession) : '-')).padEnd(8),
    (c.tool ?? c.advertised ?? c.method).padEnd(28),
    (c.decision ?? '-').padEnd(8),
    (c.decidedBy ?? '-').padEnd(11),
    c.outcome.padEnd(11),
    (c.latencyMs !== undefined ? `${Math.round(c.latencyMs)}ms` : '-').padStart(8),
    c.id,
  ];
  const extra: string[] = [];
  if (c.answeredBy) extra.push(`by ${c.answeredBy}`);
  if (c.rule) extra.push(`rule=${c.rule}`);
  if (c.error) extra.push(oneLine(c.error, LINE_MAX));
  else if (c.reason && c.outcome === 'denied') extra.push(oneLine(c.reason, LINE_MAX));
  return `${cols.join('  ')}${extra.length ? `  ${extra.join('  ')}` : ''}`;
}

export const SESSION_HEADER = `${'SESSION'.padEnd(36)}  ${'KIND'.padEnd(7)}  ${'PROFILE'.padEnd(16)}  ${'STARTED'.padEnd(19)}  ${'ENDED'.padEnd(19)}  ${'MESSAGES'.padStart(8)}  ${'STDERR'.padStart(7)}  ${'DECISIONS'.padStart(9)}  END`;

export function formatSession(s: SessionRow): string {
  const end = s.endedAt !== undefined ? dateTime(s.endedAt) : 'running';
  const notes = [s.endReason ?? '', s.dropped ? `(${s.dropped} messages dropped)` : ''].filter(Boolean).join(' ');
  return [
    s.id.padEnd(36),
    s.kind.padEnd(7),
    (s.profile ?? '-').padEnd(16),
    dateTime(s.startedAt),
    end.padEnd(19),
    String(s.messages).padStart(8),
    String(s.stderrLines).padStart(7),
    String(s.decisions).padStart(9),
    notes,
  ]
    .join('  ')
    .trimEnd();
}

export function formatRun(r: ServerRunRow): string {
  const ended =
    r.endedAt === undefined
      ? 'running'
      : `ended ${clockTime(r.endedAt)}${r.exitCode !== undefined ? ` exit ${r.exitCode}` : ''}${r.signal ? ` ${r.signal}` : ''}${r.endReason ? ` (${r.endReason})` : ''}`;
  const states = r.states.map((st) => `${st.state}${st.reason ? ` (${oneLine(st.reason, 60)})` : ''}`).join(' → ');
  return `  ${`${r.server}#${r.run}`.padEnd(16)}  pid ${String(r.pid ?? '-').padEnd(7)}  started ${clockTime(r.startedAt)}  ${ended}${states ? `\n      ${states}` : ''}${r.command ? `\n      $ ${r.command}` : ''}`;
}
