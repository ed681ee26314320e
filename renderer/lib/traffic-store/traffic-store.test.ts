import { describe, expect, it } from 'vitest';
import { lineDiff } from './line-diff';
import { rowSummary } from './summary';
import { TrafficStore, findMatches, toJsonl } from './traffic-store';
import type { ExchangeInfo, TrafficEvent } from './types';

let seq = 0;
function ev(p: Partial<TrafficEvent> & Pick<TrafficEvent, 'direction' | 'kind'>): TrafficEvent {
  seq++;
  return { seq, ts: 1_700_000_000_000 + seq, session: 'L1', bytes: 100, message: {}, ...p };
}
const down = { agentSession: 'A1' };
const up = { server: 'files' };
/** The exchange the host stamped on a leg (every request's legs carry one: lifecycle requests too). */
const x = (exchange: string) => ({ exchange });
function req(dir: TrafficEvent['direction'], id: number | string, method: string, params: unknown, extra: Partial<TrafficEvent> = {}): TrafficEvent {
  return ev({ direction: dir, kind: 'request', id, method, message: { jsonrpc: '2.0', id, method, params }, ...extra });
}
function res(dir: TrafficEvent['direction'], id: number | string, result: unknown, extra: Partial<TrafficEvent> = {}): TrafficEvent {
  return ev({ direction: dir, kind: 'response', id, message: { jsonrpc: '2.0', id, result }, ...extra });
}
function note(dir: TrafficEvent['direction'], method: string, params: unknown, extra: Partial<TrafficEvent> = {}): TrafficEvent {
  return ev({ direction: dir, kind: 'notification', method, message: { jsonrpc: '2.0', method, params }, ...extra });
}
const rows = (s: TrafficStore) => Array.from({ length: s.size() }, (_, i) => s.at(i)!);

/** An agent call through the gateway to `files`, with upstream id `upId`. */
function toolCall(agentId: number, upId: number, name = 'read_file', extra: Partial<TrafficEvent> = {}) {
  const exchange = `A1#${agentId}`;
  return {
    call: req('agent_to_gateway', agentId, 'tools/call', { name, arguments: { path: 'a.txt' }, _meta: { progressToken: `t${agentId}` } }, { ...down, exchange, ...extra }),
    leg: req('gateway_to_server', upId, 'tools/call', { name, arguments: { path: 'a.txt' }, _meta: { progressToken: upId } }, { ...up, exchange, tool: 'files.read_file', decision: 'ALLOW' }),
    legRes: res('server_to_gateway', upId, { content: [{ type: 'text', text: 'hello' }] }, { ...up, exchange }),
    res: res('gateway_to_agent', agentId, { content: [{ type: 'text', text: 'hello' }] }, { ...down, exchange, decision: 'ALLOW', tool: 'files.read_file', latencyMs: 12 }),
  };
}

describe('TrafficStore pairing', () => {
  it('joins each answer to its exchange when both sides reuse small ids on two connections', () => {
    const s = new TrafficStore();
    s.append([
      req('agent_to_gateway', 1, 'tools/list', {}, { agentSession: 'A1', ...x('A1#tools/list-1') }),
      req('agent_to_gateway', 1, 'tools/list', {}, { agentSession: 'A2', ...x('A2#tools/list-2') }),
      req('gateway_to_server', 1, 'tools/list', {}, { server: 'files', ...x('files#tools/list-3') }),
      // A server-initiated request with the same id, the other way on the same connection.
      req('server_to_gateway', 1, 'roots/list', {}, { server: 'files', ...x('files#roots-1') }),
      res('server_to_gateway', 1, { tools: [] }, { server: 'files', ...x('files#tools/list-3') }),
      res('gateway_to_agent', 1, { tools: [{ name: 'x' }] }, { agentSession: 'A2', ...x('A2#tools/list-2') }),
      res('gateway_to_server', 1, { roots: [] }, { server: 'files', ...x('files#roots-1') }),
    ]);
    const [a1, a2, upList, roots] = rows(s);
    expect(a1!.ev.agentSession).toBe('A1');
    expect(a1!.status).toBe('pending');
    expect(a2!.pair?.ev.seq).toBe(seq - 1); // A2's answer, not A1's or the server's
    expect(a2!.pair?.remote).toBe(true); // its body is the host's to keep
    expect(a2!.status).toBe('ok');
    expect(upList!.pair?.ev.direction).toBe('server_to_gateway');
    expect(roots!.ev.method).toBe('roots/list');
    expect(roots!.pair?.ev.direction).toBe('gateway_to_server');
    expect(s.size()).toBe(4); // responses merged into their calls
  });

  it('an answer that names no exchange stays unmatched, even with the id of a request in flight', () => {
    const s = new TrafficStore();
    s.append([req('agent_to_gateway', 1, 'ping', {}, { ...down, ...x('A1#ping-1') }), res('gateway_to_agent', 1, {}, down)]);
    expect(s.at(0)!.status).toBe('pending');
    expect(s.at(1)!.status).toBe('unmatched');
  });

  it('labels an unmatched response, its body kept in the host', () => {
    const s = new TrafficStore();
    s.append([res('server_to_gateway', 99, { content: [{ type: 'text', text: 'late answer' }] }, up)]);
    const r = s.at(0)!;
    expect(r.status).toBe('unmatched');
    expect(rowSummary(r)).toBe('unmatched response: late answer');
    expect(r.remote).toBe(true);
    expect(r.ev.message).toEqual({ result: {} });
  });

  it("keeps only a live row's fields: the body goes, what the row needs of it stays", () => {
    const s = new TrafficStore();
    const t = toolCall(1, 7);
    const big = 'x'.repeat(10_000);
    s.append([t.call, t.leg, res('server_to_gateway', 7, { content: [{ type: 'text', text: `HELLO ${big}` }] }, { ...up, exchange: 'A1#1' })]);
    const [call, leg] = [s.at(0)!, s.get(t.leg.seq)!];
    expect(call.remote && leg.remote && leg.pair?.remote).toBe(true);
    // Stubs: the tool name and progress token, never the arguments or the result.
    expect(call.ev.message).toEqual({ params: { name: 'read_file', _meta: { progressToken: 't1' } } });
    expect(leg.pair!.ev.message).toEqual({ result: {} });
    expect(leg.status).toBe('ok');
    const summary = rowSummary(leg);
    expect(summary).toMatch(/^read_file \(files\.read_file\) \{"path":"a\.txt"\} → HELLO x+…$/);
    expect(summary.length).toBeLessThan(300);
    // Progress still finds its call after the body went.
    s.append([note('server_to_gateway', 'notifications/progress', { progressToken: 7, progress: 1, total: 2 }, { ...up, ...x('A1#1') })]);
    expect(leg.progress).toEqual({ done: 1, total: 2 });
    // "Load older" rebuilds the rows from their events: what was taken from the bodies stays.
    const withProgress = rowSummary(leg);
    expect(withProgress).toBe(`1/2 · ${summary}`);
    expect(s.prependHistory([{ ...req('agent_to_gateway', 50, 'ping', {}, down), seq: 0 }])).toBe(1);
    const rebuilt = s.get(t.leg.seq)!;
    expect(rebuilt).not.toBe(leg);
    expect(rowSummary(rebuilt)).toBe(withProgress);
    expect(rebuilt.status).toBe('ok');
  });

  it('searches bodies: on arrival while a query is set, and in the host for rows already held', async () => {
    const s = new TrafficStore();
    const asked: Array<[string, number]> = [];
    let answer: (seqs: number[]) => void = () => {};
    s.setBodySearch((text, since) => {
      asked.push([text, since]);
      return new Promise((r) => (answer = r));
    });
    const a = toolCall(1, 1);
    s.append([a.call, a.leg, res('server_to_gateway', 1, { content: [{ type: 'text', text: 'nothing here' }] }, { ...up, exchange: 'A1#1' })]);
    const inBody = req('agent_to_gateway', 9, 'tools/call', { name: 'write_file', arguments: { content: 'needle' }, _meta: { x: 'needle2' } }, down);
    s.append([inBody]);
    s.setFilter({ text: 'needle2' }); // only in the body (the summary shows the arguments, not _meta)
    expect(asked).toEqual([['needle2', a.call.ts]]);
    expect(s.size()).toBe(0);
    answer([inBody.seq]);
    await Promise.resolve();
    expect(rows(s).map((r) => r.seq)).toEqual([inBody.seq]);
    // A row arriving while the query is set is matched on its body before the body goes.
    const later = req('agent_to_gateway', 10, 'ping', { _meta: { note: 'NEEDLE2' } }, down);
    s.append([later]);
    expect(rows(s).map((r) => r.seq)).toEqual([inBody.seq, later.seq]);
  });

  it('marks errors from JSON-RPC errors and isError results', () => {
    const s = new TrafficStore();
    s.append([
      req('agent_to_gateway', 1, 'tools/call', { name: 'x', arguments: {} }, { ...down, ...x('A1#1') }),
      ev({ direction: 'gateway_to_agent', kind: 'error', id: 1, message: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool: x' } }, ...down, ...x('A1#1') }),
      req('agent_to_gateway', 2, 'tools/call', { name: 'rm', arguments: {} }, { ...down, ...x('A1#2') }),
      res('gateway_to_agent', 2, { isError: true, content: [{ type: 'text', text: 'DENY: never' }] }, { ...down, decision: 'DENY', ...x('A1#2') }),
    ]);
    expect(s.at(0)!.status).toBe('error');
    expect(s.at(0)!.error).toBe('Unknown tool: x');
    expect(s.at(1)!).toMatchObject({ status: 'error', error: 'DENY: never', decision: 'DENY' });
    expect(rowSummary(s.at(1)!)).toContain('→ DENY: never');
  });
});

describe('TrafficStore exchanges and causal nesting', () => {
  it('groups both hops of one exchange under the agent call', () => {
    const s = new TrafficStore();
    const t = toolCall(7, 42);
    s.append([t.call, t.leg, t.legRes, t.res]);
    expect(s.size()).toBe(1);
    const call = s.at(0)!;
    expect(call.children?.map((c) => c.ev.direction)).toEqual(['gateway_to_server']);
    const leg = call.children![0]!;
    expect(leg.parent).toBe(call);
    expect(leg.pair?.ev.id).toBe(42);
    expect(call).toMatchObject({ status: 'ok', decision: 'ALLOW', server: 'files', tool: 'files.read_file', latencyMs: 12 });
    expect(s.exchangeRows(leg).map((r) => r.ev.seq)).toEqual([t.call.seq, t.leg.seq, t.legRes.seq, t.res.seq]);
    expect(s.exchangeRoot('L1', 'A1#7')).toBe(call);
    s.setExpanded(call, true);
    expect(rows(s).map((r) => r.depth)).toEqual([0, 1]);
  });

  it('nests progress on both hops under the call, with n/total for the bar', () => {
    const s = new TrafficStore();
    const t = toolCall(3, 9);
    s.append([t.call, t.leg]);
    s.append([note('server_to_gateway', 'notifications/progress', { progressToken: 9, progress: 3, total: 6 }, { ...up, ...x('A1#3') })]);
    s.append([note('gateway_to_agent', 'notifications/progress', { progressToken: 't3', progress: 3, total: 6, message: 'reading' }, { ...down, ...x('A1#3') })]);
    const call = s.at(0)!;
    expect(call.progress).toEqual({ done: 3, total: 6, message: 'reading' });
    expect(rowSummary(call).startsWith('3/6 reading')).toBe(true);
    const kids = call.children!;
    expect(kids.map((k) => k.ev.method)).toEqual(['tools/call', 'notifications/progress', 'notifications/progress']);
    expect(kids[1]!.parent).toBe(kids[0]); // upstream progress → upstream leg
    expect(kids[1]!.depth).toBe(2);
    expect(kids[2]!.parent).toBe(call);
    expect(rowSummary(kids[2]!)).toBe('3/6 reading');
    expect(s.size()).toBe(1); // collapsed by default
    s.setExpanded(call, true);
    expect(s.size()).toBe(4);
  });

  it('puts a sampling request under the call it names (its exchange\'s parent), on both hops', () => {
    const s = new TrafficStore();
    const t = toolCall(5, 11);
    const sampling = { ...x('A1#5>sampling-0-1'), parent: 'A1#5' };
    s.append([
      t.call,
      t.leg,
      req('server_to_gateway', 0, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'summarise' } }], maxTokens: 50 }, { ...up, ...sampling }),
      req('gateway_to_agent', 0, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'summarise' } }] }, { ...down, ...sampling }),
      res('gateway_to_server', 0, { content: { type: 'text', text: 'ok' } }, { ...up, ...sampling }),
    ]);
    const call = s.at(0)!;
    const [leg, upSampling, downSampling] = call.children!;
    expect(leg!.ev.direction).toBe('gateway_to_server');
    expect(upSampling!.parent).toBe(call);
    expect(downSampling!.parent).toBe(upSampling); // the question passed on, a leg of the same exchange
    expect(upSampling!.pair?.ev.direction).toBe('gateway_to_server'); // the answer joined by exchange, not by id 0
    expect(leg!.pair).toBeUndefined();
    expect(rowSummary(upSampling!)).toBe('summarise · max 50 tokens');
  });

  it('marks a call aborted on notifications/cancelled and when its server session ends', () => {
    const s = new TrafficStore();
    const a = toolCall(1, 1);
    const b = toolCall(2, 2);
    s.append([a.call, a.leg, b.call, b.leg, note('agent_to_gateway', 'notifications/cancelled', { requestId: 1, reason: 'user' }, { ...down, ...x('A1#1') })]);
    expect(s.at(0)!.status).toBe('aborted');
    expect(s.at(1)!.status).toBe('pending');
    expect(s.abortPending('files', 'L1')).toBe(2); // leg of call 1 and leg of call 2
    expect(s.at(1)!.status).toBe('aborted');
    expect(s.at(1)!.children![0]!.status).toBe('aborted');
    // A late answer does not un-abort.
    s.append([b.res]);
    expect(s.at(1)!.status).toBe('aborted');
  });

  it('needs no pairing: legs of two exchanges interleaved, with the same ids on every hop, join by exchange id only', () => {
    const s = new TrafficStore();
    // Two agent sessions both use id 1 downstream; the gateway's upstream ids and progress tokens
    // are the same too ("g-1"): only the exchange id tells the legs apart.
    const A = { ...x('A1#1') };
    const B = { agentSession: 'A2', ...x('A2#1') };
    const call = (extra: Partial<TrafficEvent>) => req('agent_to_gateway', 1, 'tools/call', { name: 'read_file', arguments: {}, _meta: { progressToken: 1 } }, extra);
    const legOf = (extra: Partial<TrafficEvent>) => req('gateway_to_server', 'g-1', 'tools/call', { name: 'read_file', arguments: {}, _meta: { progressToken: 'g-1' } }, { ...up, ...extra });
    const progress = (dir: TrafficEvent['direction'], n: number, extra: Partial<TrafficEvent>) => note(dir, 'notifications/progress', { progressToken: dir === 'server_to_gateway' ? 'g-1' : 1, progress: n }, extra);
    const answer = (dir: TrafficEvent['direction'], text: string, extra: Partial<TrafficEvent>) => res(dir, dir === 'server_to_gateway' ? 'g-1' : 1, { content: [{ type: 'text', text }] }, extra);
    const evs = [
      call({ ...down, ...A }),
      call(B),
      legOf(B),
      legOf(A),
      progress('server_to_gateway', 1, { ...up, ...B }),
      progress('gateway_to_agent', 1, B),
      progress('server_to_gateway', 7, { ...up, ...A }),
      answer('server_to_gateway', 'for A', { ...up, ...A }),
      note('agent_to_gateway', 'notifications/cancelled', { requestId: 1 }, B),
      note('gateway_to_server', 'notifications/cancelled', { requestId: 'g-1' }, { ...up, ...B }),
      answer('gateway_to_agent', 'for A', { ...down, ...A }),
      answer('server_to_gateway', 'late for B', { ...up, ...B }),
    ];
    s.append(evs);
    expect(s.size()).toBe(2);
    const [a, b] = rows(s);
    expect(a!.ev.agentSession).toBe('A1');
    expect(b!.ev.agentSession).toBe('A2');
    expect(s.exchangeRows(a!).map((r) => r.seq)).toEqual([evs[0]!, evs[3]!, evs[6]!, evs[7]!, evs[10]!].map((e) => e.seq));
    expect(s.exchangeRows(b!).map((r) => r.seq)).toEqual([evs[1]!, evs[2]!, evs[4]!, evs[5]!, evs[8]!, evs[9]!, evs[11]!].map((e) => e.seq));
    expect(a).toMatchObject({ status: 'ok', progress: { done: 7 } });
    expect(a!.pair!.seq).toBe(evs[10]!.seq);
    expect(rowSummary(a!)).toContain('→ for A');
    // B was cancelled on both hops; its late upstream answer joins B's leg and does not un-abort it.
    expect(b).toMatchObject({ status: 'aborted', progress: { done: 1 } });
    const bLeg = b!.children!.find((c) => c.ev.direction === 'gateway_to_server' && c.ev.kind === 'request')!;
    expect(bLeg.status).toBe('aborted');
    expect(bLeg.pair!.seq).toBe(evs[11]!.seq);
    expect(rows(s).some((r) => r.status === 'unmatched')).toBe(false);
  });

  it('flags protocol faults', () => {
    const s = new TrafficStore();
    s.append([ev({ direction: 'server_to_gateway', kind: 'fault', fault: 'not JSON', message: { raw: 'Listening on 3000' }, ...up })]);
    expect(s.at(0)!.status).toBe('fault');
    expect(rowSummary(s.at(0)!)).toBe('not JSON: Listening on 3000');
  });
});

describe('TrafficStore bounds', () => {
  it('evicts the oldest beyond capacity and counts it', () => {
    const s = new TrafficStore({ capacity: 3 });
    s.replace([note('server_to_gateway', 'notifications/message', { level: 'info', data: 'a' }, up)], { held: 1, total: 10, dropped: 2 });
    s.append([1, 2, 3, 4].map((i) => note('server_to_gateway', 'notifications/message', { level: 'info', data: `m${i}` }, up)), 5);
    expect(s.stats()).toEqual({ held: 3, total: 19, dropped: 7, evicted: 2, capacity: 3 });
    expect(rows(s).map((r) => rowSummary(r))).toEqual(['[info] m2', '[info] m3', '[info] m4']);
    expect(s.headRemovals).toBe(2);
    s.setCapacity(2);
    expect(s.stats().held).toBe(2);
    expect(s.size()).toBe(2);
  });

  it('forgets an evicted request, so its late response is unmatched', () => {
    const s = new TrafficStore({ capacity: 2 });
    s.append([req('agent_to_gateway', 1, 'ping', {}, { ...down, ...x('A1#ping-1') }), note('agent_to_gateway', 'notifications/initialized', {}, down), note('agent_to_gateway', 'notifications/initialized', {}, down)]);
    s.append([res('gateway_to_agent', 1, {}, { ...down, ...x('A1#ping-1') })]);
    // A leg of a known exchange whose request went: shown as an answer, never merged into a stranger.
    expect(rows(s).at(-1)!).toMatchObject({ status: 'ok', merged: false });
    s.append([res('gateway_to_agent', 1, {}, down)]);
    expect(rows(s).at(-1)!.status).toBe('unmatched');
  });

  it('keeps pinned rows in the timeline through filters and eviction', () => {
    const s = new TrafficStore({ capacity: 3 });
    s.append([note('server_to_gateway', 'notifications/message', { data: 'keep me' }, up)]);
    const pinned = s.at(0)!;
    s.togglePin(pinned);
    s.setFilter({ excludeMethods: ['notifications/message'] });
    expect(rows(s)).toEqual([pinned]);
    s.append([1, 2, 3, 4].map(() => req('agent_to_gateway', 1, 'ping', {}, down)));
    expect(pinned.evicted).toBe(true);
    expect(rows(s)[0]).toBe(pinned);
    expect(s.size()).toBe(4);
    s.togglePin(pinned);
    expect(s.size()).toBe(3);
  });

  it('appends 100k events through a 100k buffer with indexes intact', () => {
    const s = new TrafficStore({ capacity: 100_000 });
    const batch: TrafficEvent[] = [];
    for (let i = 0; i < 50_000; i++) {
      const id = i % 16; // small reused ids
      batch.push(req('gateway_to_server', id, 'tools/call', { name: 't', arguments: { i } }, { server: `s${i % 4}`, ...x(`c${i}`) }));
      batch.push(res('server_to_gateway', id, { content: [] }, { server: `s${i % 4}`, ...x(`c${i}`) }));
    }
    for (let i = 0; i < batch.length; i += 500) s.append(batch.slice(i, i + 500));
    s.append([req('agent_to_gateway', 1, 'ping', {}, down)]); // one more: evicts the oldest
    expect(s.stats()).toMatchObject({ held: 100_000, evicted: 1 });
    expect(s.size()).toBe(50_000);
    expect(rows(s).filter((r) => r.status === 'ok').length).toBe(49_999);
    s.setFilter({ servers: ['s1'] });
    expect(s.size()).toBe(12_500);
  });
});

describe('TrafficStore filters', () => {
  function sample() {
    const s = new TrafficStore();
    const t = toolCall(1, 1);
    s.append([
      t.call,
      t.leg,
      t.legRes,
      t.res,
      note('server_to_gateway', 'notifications/message', { level: 'info', data: 'indexing' }, { server: 'memory' }),
      req('agent_to_gateway', 2, 'tools/call', { name: 'rm', arguments: { path: '/' } }, { ...down, ...x('A1#2') }),
      res('gateway_to_agent', 2, { isError: true, content: [{ type: 'text', text: 'DENY: no' }] }, { ...down, decision: 'DENY', ...x('A1#2') }),
      req('agent_to_gateway', 3, 'resources/read', { uri: 'file:///Secret.md' }, { ...down, ...x('A1#3') }),
    ]);
    return s;
  }

  it('includes and excludes methods, with prefixes', () => {
    const s = sample();
    s.setFilter({ excludeMethods: ['notifications/message'] });
    expect(rows(s).map((r) => r.ev.method)).toEqual(['tools/call', 'tools/call', 'resources/read']);
    s.setFilter({ includeMethods: ['notifications/*'] });
    expect(rows(s).map((r) => r.ev.method)).toEqual(['notifications/message']);
  });

  it('filters by server (an agent call counts as its upstream server) and direction', () => {
    const s = sample();
    s.setFilter({ servers: ['files'] });
    expect(s.size()).toBe(1);
    expect(s.at(0)!.ev.id).toBe(1);
    s.setFilter({ directions: ['server_to_gateway'] });
    // Only what the server sent of its own accord: a call travels in its request's direction.
    expect(rows(s).map((r) => r.ev.method)).toEqual(['notifications/message']);
  });

  it('each direction option shows only that direction', () => {
    const s = new TrafficStore();
    const t = toolCall(1, 11);
    s.append([
      t.call,
      t.leg,
      req('server_to_gateway', 'srv-1', 'sampling/createMessage', {}, { ...up, exchange: 'A1#1>sampling-1', parent: 'A1#1' }),
      req('gateway_to_agent', 'gh-1', 'sampling/createMessage', {}, { ...down, exchange: 'A1#1>sampling-1', parent: 'A1#1' }),
      t.legRes,
      t.res,
    ]);
    const seen: Record<string, string[]> = {};
    for (const d of ['agent_to_gateway', 'gateway_to_agent', 'gateway_to_server', 'server_to_gateway'] as const) {
      s.setFilter({ directions: [d] });
      seen[d] = rows(s).map((r) => `${r.ev.direction} ${r.ev.method}`);
      expect(rows(s).every((r) => r.ev.direction === d), d).toBe(true);
    }
    expect(seen).toEqual({
      agent_to_gateway: ['agent_to_gateway tools/call'],
      gateway_to_agent: ['gateway_to_agent sampling/createMessage'],
      gateway_to_server: ['gateway_to_server tools/call'],
      server_to_gateway: ['server_to_gateway sampling/createMessage'],
    });
    s.setFilter({ directions: ['gateway_to_server', 'server_to_gateway'] });
    expect(rows(s).map((r) => r.ev.direction)).toEqual(['gateway_to_server', 'server_to_gateway']);
    s.setFilter({});
    expect(s.size()).toBe(1); // the call, its legs under it
  });

  it('shows only errors and denials, and updates when a pending call fails', () => {
    const s = sample();
    s.setFilter({ statuses: ['error', 'denied'] });
    expect(rows(s).map((r) => r.ev.id)).toEqual([2]);
    s.append([ev({ direction: 'gateway_to_agent', kind: 'error', id: 3, message: { jsonrpc: '2.0', id: 3, error: { code: -1, message: 'gone' } }, ...down, ...x('A1#3') })]);
    expect(rows(s).map((r) => r.ev.id)).toEqual([2, 3]);
  });

  it('searches method, summary and JSON of both sides, case-insensitively, with match positions', () => {
    const s = sample();
    s.setFilter({ text: 'secret' });
    expect(rows(s).map((r) => r.ev.method)).toEqual(['resources/read']);
    s.setFilter({ text: 'HELLO' }); // only in the response body
    expect(s.size()).toBe(1);
    expect(findMatches('read file:///Secret.md secret', 'secret')).toEqual([
      [13, 19],
      [23, 29],
    ]);
    s.setFilter({});
    expect(s.size()).toBe(4);
  });
});

describe('TrafficStore export, history and replay', () => {
  it('exports the filtered set and one exchange as JSONL', () => {
    const s = new TrafficStore();
    const t = toolCall(1, 1);
    s.append([t.call, t.leg, t.legRes, t.res, req('agent_to_gateway', 2, 'ping', {}, down)]);
    const hops = s.exchangeRows(s.at(0)!);
    // The bodies come from the host (TrafficBodies.collect); one it no longer has is marked so.
    const bodies = new Map<number, unknown>(hops.slice(0, 3).map((r) => [r.seq, { fetched: r.seq }]));
    const lines = toJsonl(hops, bodies).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.seq)).toEqual([t.call.seq, t.leg.seq, t.legRes.seq, t.res.seq]);
    expect(lines.map((l) => l.message)).toEqual([{ fetched: t.call.seq }, { fetched: t.leg.seq }, { fetched: t.legRes.seq }, undefined]);
    expect(lines[3].bodyUnavailable).toBe(true);
    s.setFilter({ includeMethods: ['ping'] });
    expect(toJsonl(s.filteredRows()).trim().split('\n')).toHaveLength(1);
  });

  it('prepends older history before what it holds', () => {
    const s = new TrafficStore({ capacity: 2 });
    const older = [req('agent_to_gateway', 1, 'ping', {}, { ...down, ...x('A1#ping-1') }), res('gateway_to_agent', 1, {}, { ...down, ...x('A1#ping-1') })];
    const newer = [req('agent_to_gateway', 2, 'ping', {}, { ...down, ...x('A1#ping-2') }), res('gateway_to_agent', 2, {}, { ...down, ...x('A1#ping-2') })];
    s.replace(newer);
    expect(s.prependHistory([...older, newer[0]!])).toBe(2);
    expect(s.stats().held).toBe(4);
    expect(rows(s).map((r) => [r.ev.id, r.status])).toEqual([
      [1, 'ok'],
      [2, 'ok'],
    ]);
    expect(s.oldestSeq()).toBe(older[0]!.seq);
  });

  it('links a replay to the call it re-sent', () => {
    const s = new TrafficStore();
    const t = toolCall(1, 1);
    s.append([t.call, t.leg, t.legRes, t.res]);
    const original = s.at(0)!;
    s.linkReplay(original, 'L1', 'ui#console-abc');
    s.append([req('gateway_to_server', 5, 'tools/call', { name: 'read_file', arguments: { path: 'a.txt' } }, { ...up, exchange: 'ui#console-abc' })]);
    const replay = s.at(1)!;
    expect(replay.replayOf).toBe(original.seq);
    expect(s.replaysOf(original)).toEqual([replay]);
  });

  it('diffs two results line by line', () => {
    expect(lineDiff('a\nb\nc', 'a\nx\nc')).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'x' },
      { op: ' ', text: 'c' },
    ]);
  });
});

function info(p: Partial<ExchangeInfo> & Pick<ExchangeInfo, 'id'>): ExchangeInfo {
  return { ts: 1_700_000_000_000, session: 'L1', kind: 'call', method: 'tools/call', outcome: 'pending', ...p };
}

describe('TrafficStore and the host\'s exchanges', () => {
  it('shows a Tool console call that never crossed an agent hop, denied or pending, with who decided', () => {
    const s = new TrafficStore();
    s.append([req('agent_to_gateway', 1, 'ping', {}, down)]);
    s.applyExchanges([
      info({ id: 'ui#console-1', agentSession: 'ui', tool: 'files.write_file', advertised: 'write_file', decision: 'DENY', decidedBy: 'rule', outcome: 'denied' }),
      info({ id: 'ui#console-2', agentSession: 'ui', tool: 'files.move', advertised: 'move', decision: 'APPROVAL' }),
    ]);
    const [ping, denied, pending] = rows(s);
    expect(ping!.ev.method).toBe('ping');
    expect(denied).toMatchObject({ synthetic: true, decision: 'DENY', decidedBy: 'rule', outcome: 'denied', status: 'error', tool: 'files.write_file' });
    expect(pending).toMatchObject({ synthetic: true, decision: 'APPROVAL', status: 'pending' });
    // Nothing crossed the wire for them: the row shows the exchange's own record, not a made-up JSON-RPC message.
    expect(denied!.ev.message).toMatchObject({ id: 'ui#console-1', decision: 'DENY', outcome: 'denied' });
    expect(denied!.ev.message).not.toHaveProperty('jsonrpc');
    expect(rowSummary(denied!)).toBe('write_file (files.write_file)');
    // Later: a person denied the pending one; the same row changes, no new row.
    s.applyExchanges([info({ id: 'ui#console-2', agentSession: 'ui', tool: 'files.move', decision: 'APPROVAL', decidedBy: 'person', answeredBy: 'alice', outcome: 'denied' })]);
    expect(s.size()).toBe(3);
    expect(rows(s)[2]).toMatchObject({ decidedBy: 'person', outcome: 'denied', status: 'error' });
    expect(rows(s)[2]!.shadow).toBeUndefined();
    // A shadow rule's verdict rides on the reason; the row carries it for its badge.
    s.applyExchanges([info({ id: 'ui#console-1', agentSession: 'ui', tool: 'files.write_file', decision: 'DENY', decidedBy: 'rule', outcome: 'denied', reason: 'denied by policy.rules[1] [shadow policy.rules[0] would ask a person]' })]);
    expect(rows(s)[1]!.shadow).toBe('shadow policy.rules[0] would ask a person');
    // Load older pages back from the tap's seq, never from a row of its own.
    expect(s.oldestSeq()).toBe(ping!.seq);
    // The footer's "last N of M" counts the tap's events: the two rows of its own are not among them.
    expect(s.stats()).toMatchObject({ held: 1, total: 1 });
  });

  it('counts its own rows out of what it holds as they are evicted too', () => {
    const s = new TrafficStore({ capacity: 3 });
    s.append([req('agent_to_gateway', 1, 'ping', {}, down)]);
    s.applyExchanges([info({ id: 'ui#console-1', agentSession: 'ui', tool: 'files.write_file', decision: 'DENY', decidedBy: 'rule', outcome: 'denied' })]);
    s.append([2, 3, 4].map((id) => req('agent_to_gateway', id, 'ping', {}, down)));
    expect(s.stats()).toMatchObject({ held: 3, total: 4 });
  });

  it('the Denials chip finds denials by policy, by a person and by the timeout, not allowed calls', () => {
    const s = new TrafficStore();
    const calls = [toolCall(1, 11), toolCall(2, 12), toolCall(3, 13), toolCall(4, 14)];
    for (const t of calls) s.append([t.call]);
    s.applyExchanges([
      info({ id: 'A1#1', agentSession: 'A1', decision: 'DENY', decidedBy: 'rule', outcome: 'denied' }),
      info({ id: 'A1#2', agentSession: 'A1', decision: 'APPROVAL', decidedBy: 'person', outcome: 'denied' }),
      info({ id: 'A1#3', agentSession: 'A1', decision: 'APPROVAL', decidedBy: 'timeout', outcome: 'denied' }),
      info({ id: 'A1#4', agentSession: 'A1', decision: 'ALLOW', decidedBy: 'rule', outcome: 'ok' }),
    ]);
    s.setFilter({ statuses: ['denied'] });
    expect(rows(s).map((r) => [r.ev.exchange, r.decidedBy])).toEqual([
      ['A1#1', 'rule'],
      ['A1#2', 'person'],
      ['A1#3', 'timeout'],
    ]);
  });

  it('an exchange record that comes before its traffic is applied when the call\'s row arrives', () => {
    const s = new TrafficStore();
    s.applyExchanges([info({ id: 'A1#9', agentSession: 'A1', downstreamId: 9, decision: 'APPROVAL', decidedBy: 'timeout', outcome: 'denied' })]);
    expect(s.size()).toBe(0); // an agent call: its own request row will come
    s.append([toolCall(9, 19).call]);
    expect(s.at(0)).toMatchObject({ decidedBy: 'timeout', outcome: 'denied' });
  });

  it('"Load older" does not invent unmatched rows at the page boundary', () => {
    const s = new TrafficStore();
    const t = toolCall(5, 15);
    const lifecycle = [req('agent_to_gateway', 'l1', 'tools/list', {}, down), res('gateway_to_agent', 'l1', { tools: [] }, down)];
    s.replace([t.legRes, t.res, req('agent_to_gateway', 6, 'ping', {}, down)]);
    // The live page starts after the call's request: its response rows have no request held,
    // but they are legs of a known exchange, not orphans.
    expect(rows(s).filter((r) => r.status === 'unmatched')).toEqual([]);
    // The older page ends between a request and its response (the response is older than the page).
    s.prependHistory([lifecycle[1]!]);
    expect(rows(s).filter((r) => r.status === 'unmatched')).toEqual([]);
  });
});

