// The filter index gives the same rows as a full pass (correctness, not timing: speed is
// bench/ui's). Two stores are fed the same 110k synthetic events through a 100k buffer (so
// eviction runs): one filters through the index, one with a full pass per change; every
// filter, before and after live traffic changes statuses under it, must show the same list.
import { describe, expect, it } from 'vitest';
import { compileFilter, rowMatches } from './filter';
import { FilterIndex } from './filter-index';
import { TrafficStore } from './traffic-store';
import type { ExchangeInfo, TrafficEvent, TrafficFilter } from './types';

const TOTAL_CALLS = 40_000;

/** A deterministic stream of calls of every outcome; built anew per store (stores keep what they are fed). */
function traffic(from: number, to: number, seq0: number): { events: TrafficEvent[]; exchanges: ExchangeInfo[]; seq: number } {
  let seq = seq0;
  const events: TrafficEvent[] = [];
  const exchanges: ExchangeInfo[] = [];
  const ev = (p: Partial<TrafficEvent> & Pick<TrafficEvent, 'direction' | 'kind'>): TrafficEvent => {
    seq++;
    const e: TrafficEvent = { seq, ts: 1_700_000_000_000 + seq, session: 'L1', bytes: 100 + (seq % 900), message: {}, ...p };
    events.push(e);
    return e;
  };
  for (let i = from; i < to; i++) {
    const session = i % 3 === 0 ? 'L2' : 'L1';
    const agentSession = `A${i % 4}`;
    const server = `s${i % 4}`;
    const exchange = `${agentSession}#${i}`;
    const kind = i % 10;
    const down = { session, agentSession, exchange };
    const up = { session, server, exchange };
    if (kind === 9) {
      ev({ session, server, direction: 'server_to_gateway', kind: 'notification', method: 'notifications/message', message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `log ${i}` } } });
      continue;
    }
    const method = i % 7 === 0 ? 'resources/read' : 'tools/call';
    const params = method === 'tools/call' ? { name: `tool${i % 5}`, arguments: { i } } : { uri: `file:///f${i}` };
    ev({ ...down, direction: 'agent_to_gateway', kind: 'request', id: i, method, message: { jsonrpc: '2.0', id: i, method, params } });
    if (kind === 7) {
      ev({ ...down, direction: 'gateway_to_agent', kind: 'response', id: i, decision: 'DENY', message: { jsonrpc: '2.0', id: i, result: { isError: true, content: [{ type: 'text', text: 'DENY: no' }] } } });
      continue;
    }
    ev({ ...up, direction: 'gateway_to_server', kind: 'request', id: i, method, decision: 'ALLOW', message: { jsonrpc: '2.0', id: i, method, params } });
    if (kind === 8) {
      // In flight; some of them are then denied by the approval timeout (the exchange says so).
      if (i % 20 === 8) exchanges.push({ id: exchange, ts: 1_700_000_000_000 + seq, session, agentSession, kind: 'call', method, downstreamId: i, decision: 'APPROVAL', decidedBy: 'timeout', outcome: 'denied', error: 'timed out' });
      continue;
    }
    // Some answered calls carry data findings on their exchange record (the Findings chip).
    if (i % 13 === 0) exchanges.push(findingsInfo(i, session, agentSession, kind === 6 ? 'error' : 'ok', seq));
    const result = kind === 6 ? { isError: true, content: [{ type: 'text', text: 'failed' }] } : { content: [{ type: 'text', text: 'ok' }] };
    ev({ ...up, direction: 'server_to_gateway', kind: 'response', id: i, message: { jsonrpc: '2.0', id: i, result } });
    ev({ ...down, direction: 'gateway_to_agent', kind: 'response', id: i, latencyMs: i % 250, message: { jsonrpc: '2.0', id: i, result } });
  }
  return { events, exchanges, seq };
}

/** The exchange record of call `i` with a credential found in its result (a rule and a path, never a value). */
function findingsInfo(i: number, session: string, agentSession: string, outcome: string, ts: number): ExchangeInfo {
  return {
    id: `${agentSession}#${i}`,
    ts: 1_700_000_000_000 + ts,
    session,
    agentSession,
    kind: 'call',
    method: i % 7 === 0 ? 'resources/read' : 'tools/call',
    downstreamId: i,
    sentAt: 1,
    decision: 'ALLOW',
    outcome,
    findings: [{ direction: 'result', kind: 'credential', rule: 'aws', detail: 'AWSAccessKeyID', path: '$.content[0].text', start: 0, end: 20 }],
  };
}

/** Findings learnt later for answered calls (kinds 0-5) in [from, to): no status change, only the record. */
function lateFindings(from: number, to: number): ExchangeInfo[] {
  const out: ExchangeInfo[] = [];
  for (let i = from; i < to; i++) {
    if (i % 17 !== 0 || i % 13 === 0 || i % 10 > 5) continue;
    out.push(findingsInfo(i, i % 3 === 0 ? 'L2' : 'L1', `A${i % 4}`, 'ok', i));
  }
  return out;
}

/** Answers, later, calls left in flight: their status changes under whatever filter is set. */
function lateAnswers(from: number, to: number, seq0: number): TrafficEvent[] {
  const out: TrafficEvent[] = [];
  let seq = seq0;
  for (let i = from; i < to; i++) {
    if (i % 10 !== 8 || i % 20 === 8) continue;
    const session = i % 3 === 0 ? 'L2' : 'L1';
    const agentSession = `A${i % 4}`;
    seq++;
    out.push({ seq, ts: 1_700_000_000_000 + seq, session, agentSession, exchange: `${agentSession}#${i}`, direction: 'gateway_to_agent', kind: 'error', id: i, bytes: 80, latencyMs: 400, message: { jsonrpc: '2.0', id: i, error: { code: -32000, message: 'late failure' } } });
  }
  return out;
}

function feed(store: TrafficStore, from: number, to: number, seq0: number): number {
  const t = traffic(from, to, seq0);
  for (let i = 0; i < t.events.length; i += 2000) store.append(t.events.slice(i, i + 2000));
  store.applyExchanges(t.exchanges);
  return t.seq;
}

const shown = (s: TrafficStore) => Array.from({ length: s.size() }, (_, i) => s.at(i)!.seq);

const FILTERS: TrafficFilter[] = [
  { statuses: ['error'] },
  { statuses: ['denied'] },
  { statuses: ['pending'] },
  { statuses: ['error', 'denied'] },
  { statuses: ['findings'] },
  { statuses: ['findings', 'denied'] },
  { statuses: ['findings'], servers: ['s1'] },
  { servers: ['s1'] },
  { sessions: ['L2'] },
  { directions: ['gateway_to_server'] },
  { includeMethods: ['resources/read'] },
  { excludeMethods: ['notifications/message'] },
  { statuses: ['error'], servers: ['s2'], sessions: ['L1'] },
  { statuses: ['error'], directions: ['agent_to_gateway', 'gateway_to_agent'] },
  { minLatencyMs: 200 },
  { statuses: ['error'], minLatencyMs: 100 },
  { text: 'tool3' },
  { statuses: ['ok'], text: 'tool1' },
  {},
];

describe('the filter index over 100k held rows', () => {
  it('shows the same rows as a full pass, for every filter, through eviction, expansion, pins and live status changes', () => {
    const indexed = new TrafficStore({ capacity: 100_000 });
    const full = new TrafficStore({ capacity: 100_000, fullPassFilter: true });
    let seq = 0;
    for (const s of [indexed, full]) seq = feed(s, 0, TOTAL_CALLS, 0);
    expect(indexed.stats().held).toBe(100_000);
    expect(indexed.stats().evicted).toBeGreaterThan(0);

    // The same view state on both: one call expanded, a few rows pinned (one a child).
    for (const s of [indexed, full]) {
      const root = s.exchangeRoot('L1', 'A2#30002')!;
      s.setExpanded(root, true);
      s.togglePin(s.exchangeRoot('L2', 'A3#30003')!);
      s.togglePin(root.children![0]!);
    }

    for (const f of FILTERS) {
      indexed.setFilter(f);
      full.setFilter(f);
      expect(shown(indexed), JSON.stringify(f)).toEqual(shown(full));
    }

    // Under the Errors chip, traffic keeps arriving: new calls, and late errors of calls that
    // were in flight (pending → error while the filter is set).
    for (const s of [indexed, full]) s.setFilter({ statuses: ['error'] });
    const before = indexed.size();
    let next = 0;
    for (const s of [indexed, full]) {
      next = feed(s, TOTAL_CALLS, TOTAL_CALLS + 2000, seq);
      s.append(lateAnswers(TOTAL_CALLS - 3000, TOTAL_CALLS, next));
    }
    expect(indexed.size()).toBeGreaterThan(before);
    expect(shown(indexed)).toEqual(shown(full));

    // Under the Findings chip, findings arrive for calls already answered (no status change):
    // the chip shows exactly the calls with findings, incrementally as a full pass does.
    // Pins off (they stay whatever the filter), so what is shown is what the chip selects.
    for (const s of [indexed, full]) {
      s.togglePin(s.exchangeRoot('L2', 'A3#30003')!);
      s.togglePin(s.exchangeRoot('L1', 'A2#30002')!.children![0]!);
      s.setFilter({ statuses: ['findings'] });
    }
    const withFindings = indexed.size();
    for (const s of [indexed, full]) s.applyExchanges(lateFindings(TOTAL_CALLS - 5000, TOTAL_CALLS));
    expect(indexed.size()).toBeGreaterThan(withFindings);
    expect(shown(indexed)).toEqual(shown(full));
    const rows = Array.from({ length: indexed.size() }, (_, i) => indexed.at(i)!);
    expect(rows.every((r) => (r.findings?.length ?? 0) > 0)).toBe(true);
    const held = [...indexed.all()].filter((r) => !r.merged && (r.findings?.length ?? 0) > 0);
    expect(new Set(rows)).toEqual(new Set(held));
    for (const f of FILTERS) {
      indexed.setFilter(f);
      full.setFilter(f);
      expect(shown(indexed), `after live traffic: ${JSON.stringify(f)}`).toEqual(shown(full));
    }
    // 220k events into two stores and ~70 filter changes at 100k: seconds on a quiet machine, a minute on a loaded one.
  }, 240_000);

  it('narrows a chip to its bucket: candidates are a small superset of the matching rows', () => {
    const store = new TrafficStore({ capacity: 100_000 });
    feed(store, 0, TOTAL_CALLS, 0);
    const index = new FilterIndex();
    const held = [...store.all()];
    // Filed again from scratch here (the store's own index filed them already).
    index.clear(held);
    for (const r of held) index.add(r);
    for (const f of [{ statuses: ['error'] }, { statuses: ['denied'] }, { statuses: ['findings'] }, { servers: ['s1'] }, { includeMethods: ['resources/read'] }] satisfies TrafficFilter[]) {
      const c = compileFilter(f);
      const candidates = index.candidates(c);
      expect(candidates, JSON.stringify(f)).toBeDefined();
      const matching = held.filter((r) => !r.merged && rowMatches(c, r));
      expect(matching.length).toBeGreaterThan(0);
      const set = new Set(candidates);
      expect(matching.every((r) => set.has(r))).toBe(true);
      // Far from every row held: the click visits what it can show.
      expect(candidates!.length).toBeLessThan(held.length / 2);
    }
    // A filter that keeps most rows (or text only) is one pass in ring order instead.
    expect(index.candidates(compileFilter({ excludeMethods: ['notifications/message'] }))).toBeUndefined();
    expect(index.candidates(compileFilter({ text: 'tool3' }))).toBeUndefined();
  }, 120_000);
});
