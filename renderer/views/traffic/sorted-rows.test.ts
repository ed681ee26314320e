import { describe, expect, it } from 'vitest';
import { clipWords } from '../../lib/traffic-store/summary';
import { formatQuery, parseQuery } from '../../lib/traffic-store/filter';
import { TrafficStore, type TrafficEvent } from '../../lib/traffic-store';
import { nextSort, sortRows } from './sorted-rows';
import { agentOf, decisionBadge } from './traffic-row';

let seq = 0;
function call(id: number, latencyMs: number | undefined, resBytes = 50): TrafficEvent[] {
  const base = { session: 'L1', agentSession: 'A1', exchange: `A1#${id}` };
  const out: TrafficEvent[] = [{ ...base, seq: ++seq, ts: seq, direction: 'agent_to_gateway', kind: 'request', id, method: 'tools/call', bytes: 10 + id, message: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: `t${id}` } } }];
  out.push({ ...base, server: 'files', seq: ++seq, ts: seq, direction: 'gateway_to_server', kind: 'request', id: 100 + id, method: 'tools/call', bytes: 10, message: { jsonrpc: '2.0', id: 100 + id, method: 'tools/call', params: {} } });
  if (latencyMs !== undefined) out.push({ ...base, seq: ++seq, ts: seq, direction: 'gateway_to_agent', kind: 'response', id, bytes: resBytes, latencyMs, message: { jsonrpc: '2.0', id, result: { content: [] } } });
  return out;
}

describe('sorting Traffic by a column', () => {
  it('by latency: slowest call first, each with the rows under it, unanswered calls last', () => {
    const s = new TrafficStore();
    s.append([...call(1, 30), ...call(2, 900), ...call(3, undefined), ...call(4, 5)]);
    const root = s.exchangeRoot('L1', 'A1#2')!;
    s.setExpanded(root, true);
    const sorted = sortRows(s, { column: 'latency', dir: 'desc' });
    const shown = Array.from({ length: sorted.size() }, (_, i) => sorted.at(i)!);
    expect(shown.map((r) => `${r.depth}:${r.latencyMs ?? '-'}`)).toEqual(['0:900', '1:-', '0:30', '0:5', '0:-']);
    expect(shown[1]!.root).toBe(root); // its upstream leg stays under it
    const asc = sortRows(s, { column: 'latency', dir: 'asc' });
    expect(Array.from({ length: asc.size() }, (_, i) => asc.at(i)!.latencyMs ?? null).filter((x) => x !== null)).toEqual([5, 30, 900]);
    expect(asc.at(asc.size() - 1)!.latencyMs).toBeUndefined();
    expect(sorted.indexOf(root)).toBe(0);
  });

  it('by response size, and the header cycle: largest first, smallest first, off', () => {
    const s = new TrafficStore();
    s.append([...call(1, 10, 500), ...call(2, 10, 20), ...call(3, 10, 9000)]);
    const sorted = sortRows(s, { column: 'res', dir: 'desc' });
    expect([0, 1, 2].map((i) => sorted.at(i)!.pair!.ev.bytes)).toEqual([9000, 500, 20]);
    const a = nextSort(undefined, 'latency');
    expect(a).toEqual({ column: 'latency', dir: 'desc' });
    expect(nextSort(a, 'latency')).toEqual({ column: 'latency', dir: 'asc' });
    expect(nextSort(nextSort(a, 'latency'), 'latency')).toBeUndefined();
    expect(nextSort(a, 'res')).toEqual({ column: 'res', dir: 'desc' });
  });
});

describe('the latency filter', () => {
  it('reads latency>N ms from the search box and keeps only calls slower than that', () => {
    expect(parseQuery('latency>500ms')).toEqual({ text: '', minLatencyMs: 500 });
    expect(parseQuery('read_file latency > 2s')).toEqual({ text: 'read_file', minLatencyMs: 2000 });
    expect(parseQuery('latency>250 files')).toEqual({ text: 'files', minLatencyMs: 250 });
    expect(parseQuery('latency of reads')).toEqual({ text: 'latency of reads' });
    expect(formatQuery({ text: 'files', minLatencyMs: 250 })).toBe('latency>250ms files');
    expect(parseQuery(formatQuery({ text: 'x', minLatencyMs: 75 }))).toEqual({ text: 'x', minLatencyMs: 75 });
    const s = new TrafficStore();
    s.append([...call(1, 30), ...call(2, 900), ...call(3, undefined), ...call(4, 501)]);
    s.setFilter({ minLatencyMs: 500 });
    expect(Array.from({ length: s.size() }, (_, i) => s.at(i)!.latencyMs)).toEqual([900, 501]);
  });
});

describe('row text', () => {
  it('a long reason is cut at a word, not inside one', () => {
    const reason = 'waiting for approval: the server files changed its program; review it in the Servers view or run gatehouse trust accept';
    const cut = clipWords(reason, 90);
    expect(cut.endsWith('…')).toBe(true);
    expect(reason.startsWith(cut.slice(0, -1))).toBe(true);
    expect(reason[cut.length - 1]).toBe(' '); // the next character was a space: a whole word
    expect(clipWords('x'.repeat(300), 100)).toHaveLength(101);
  });

  it('the decision badge says how an APPROVAL call ended, in one badge', () => {
    const s = new TrafficStore();
    s.append(call(1, undefined));
    const row = s.exchangeRoot('L1', 'A1#1')!;
    row.decision = 'APPROVAL';
    expect(decisionBadge(row)?.text).toBe('APPROVAL');
    row.outcome = 'denied';
    row.decidedBy = 'timeout';
    expect(decisionBadge(row)).toMatchObject({ text: 'TIMEOUT', tone: 'deny' });
    row.decidedBy = 'person';
    expect(decisionBadge(row)?.text).toBe('DENIED');
    row.decidedBy = 'no_approver';
    expect(decisionBadge(row)?.text).toBe('NO APPROVER');
    row.outcome = 'ok';
    expect(decisionBadge(row)?.text).toBe('APPROVED');
  });

  it("an agent is shown by its client's name, its upstream leg too; the id is in the tooltip", () => {
    const s = new TrafficStore();
    const evs = call(1, 10);
    evs[0]!.agentName = 'claude-code';
    evs[0]!.agentVersion = '2.1';
    s.append(evs);
    const root = s.exchangeRoot('L1', 'A1#1')!;
    expect(agentOf(root)).toEqual({ label: 'claude-code', title: 'claude-code 2.1 · agent session A1' });
    expect(agentOf(root.children![0]!).label).toBe('claude-code');
    const anon = new TrafficStore();
    anon.append(call(2, 10).map((e) => ({ ...e, agentSession: '0123456789abcdef' })));
    expect(agentOf(anon.at(0)!)).toEqual({ label: '01234567', title: '0123456789abcdef' });
  });

  it("a Tool console call's own leg replaces the row that stood in for its exchange", () => {
    const s = new TrafficStore();
    s.applyExchanges([{ id: 'ui-web#console-1', ts: 1, session: 'L1', agentSession: 'ui-web', kind: 'call', method: 'tools/call', tool: 'fs.write', decision: 'APPROVAL', outcome: 'pending' }]);
    expect(s.size()).toBe(1);
    expect(s.at(0)!.synthetic).toBe(true);
    const base = { session: 'L1', agentSession: 'ui-web', exchange: 'ui-web#console-1' };
    s.append([{ ...base, seq: ++seq, ts: seq, direction: 'agent_to_gateway', kind: 'request', id: 'console-1', method: 'tools/call', bytes: 80, message: { jsonrpc: '2.0', id: 'console-1', method: 'tools/call', params: { name: 'write_file', arguments: { path: 'a' } } } }]);
    expect(s.size()).toBe(1);
    expect(s.at(0)!.synthetic).toBeUndefined();
    expect(s.at(0)!.ev.bytes).toBe(80);
    s.setFilter({ statuses: ['pending'] });
    expect(s.size()).toBe(1);
  });
});
