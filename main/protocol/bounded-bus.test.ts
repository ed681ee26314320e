import { afterEach, describe, expect, it, vi } from 'vitest';
import { BoundedBus, type BatchInfo } from './bounded-bus';
import { attachJsonText, messageJsonText } from './json-text';

interface Item {
  seq: number;
  n: number;
}

const buses: BoundedBus<Item>[] = [];
function bus(capacity?: number): BoundedBus<Item> {
  const b = new BoundedBus<Item>({ capacity, name: 'test' });
  buses.push(b);
  return b;
}
afterEach(() => {
  for (const b of buses.splice(0)) b.close();
  vi.restoreAllMocks();
});

/** Collects batches; `until(n)` resolves once n items have arrived. */
function collector() {
  const batches: Item[][] = [];
  const infos: BatchInfo[] = [];
  const fn = (batch: Item[], info: BatchInfo): void => {
    batches.push(batch);
    infos.push(info);
  };
  const items = (): Item[] => batches.flat();
  const until = (n: number): Promise<void> => vi.waitFor(() => expect(items().length).toBeGreaterThanOrEqual(n), { timeout: 5000 });
  return { fn, batches, infos, items, until };
}

describe('BoundedBus', () => {
  it('assigns monotonic seqs and delivers in batches, never inside publish', async () => {
    const b = bus();
    const c = collector();
    b.subscribe(c.fn, { intervalMs: 5 });
    const published = [1, 2, 3].map((n) => b.publish({ n }));
    expect(published.map((i) => i.seq)).toEqual([1, 2, 3]);
    expect(c.batches).toHaveLength(0); // nothing synchronous
    await c.until(3);
    expect(c.batches).toEqual([published]); // one burst, one call
    expect(c.infos).toEqual([{ dropped: 0 }]);
    b.publish({ n: 4 });
    await c.until(4);
    expect(c.items().map((i) => i.seq)).toEqual([1, 2, 3, 4]);
  });

  it('keeps only the last `capacity` items and counts the rest', () => {
    const b = bus(100);
    for (let n = 0; n < 1000; n++) b.publish({ n });
    expect(b.stats()).toEqual({ held: 100, total: 1000, dropped: 0, evicted: 900 });
    const snap = b.snapshot();
    expect(snap).toHaveLength(100);
    expect(snap[0]!.seq).toBe(901);
    expect(snap[99]!.seq).toBe(1000);
  });

  it('snapshot honours limit and afterSeq, oldest first', () => {
    const b = bus(10);
    for (let n = 0; n < 25; n++) b.publish({ n });
    expect(b.snapshot({ limit: 3 }).map((i) => i.seq)).toEqual([23, 24, 25]);
    expect(b.snapshot({ afterSeq: 21 }).map((i) => i.seq)).toEqual([22, 23, 24, 25]);
    expect(b.snapshot({ afterSeq: 2 }).map((i) => i.seq)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(b.snapshot({ afterSeq: 25 })).toEqual([]);
    expect(b.snapshot({ afterSeq: 10, limit: 2 }).map((i) => i.seq)).toEqual([24, 25]);
    expect(b.snapshot({ limit: 0 })).toEqual([]);
    expect(bus().snapshot()).toEqual([]);
  });

  it('replays to a late subscriber without a gap or a duplicate', async () => {
    const b = bus();
    for (let n = 0; n < 5; n++) b.publish({ n });
    const c = collector();
    const replay = b.snapshot();
    b.subscribe(c.fn, { intervalMs: 1 });
    for (let n = 5; n < 8; n++) b.publish({ n });
    await c.until(3);
    expect([...replay, ...c.items()].map((i) => i.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('bounds a slow subscriber: the oldest pending items are dropped and reported', async () => {
    const b = bus();
    const slow = collector();
    const fast = collector();
    b.subscribe(slow.fn, { intervalMs: 1, maxPending: 100 });
    b.subscribe(fast.fn, { intervalMs: 1 });
    for (let n = 0; n < 1000; n++) b.publish({ n });
    await slow.until(100);
    await fast.until(1000);
    expect(slow.items().map((i) => i.n)).toEqual(Array.from({ length: 100 }, (_, k) => 900 + k));
    expect(slow.infos[0]).toEqual({ dropped: 900 });
    expect(fast.infos[0]).toEqual({ dropped: 0 });
    expect(b.stats().dropped).toBe(900);
    b.publish({ n: 1000 });
    await slow.until(101);
    expect(slow.infos.at(-1)).toEqual({ dropped: 0 });
  });

  it('isolates a subscriber that throws and reports it to stderr once', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const b = bus();
    const good = collector();
    let calls = 0;
    b.subscribe(() => {
      calls++;
      throw new Error('boom');
    }, { intervalMs: 1 });
    b.subscribe(good.fn, { intervalMs: 1 });
    b.publish({ n: 1 });
    await good.until(1);
    await vi.waitFor(() => expect(calls).toBe(1));
    b.publish({ n: 2 });
    await good.until(2);
    await vi.waitFor(() => expect(calls).toBe(2));
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]![0])).toMatch(/test subscriber threw/);
  });

  it('stops delivering after unsubscribe and close', async () => {
    const b = bus();
    const gone = collector();
    const stays = collector();
    const unsubscribe = b.subscribe(gone.fn, { intervalMs: 1 });
    b.subscribe(stays.fn, { intervalMs: 1 });
    b.publish({ n: 1 });
    unsubscribe();
    b.publish({ n: 2 });
    await stays.until(2);
    expect(gone.batches).toEqual([]);
    b.close();
    b.publish({ n: 3 });
    expect(b.stats().total).toBe(3);
    expect(b.snapshot({ limit: 1 })[0]!.n).toBe(3);
  });

  it('delivers what a subscriber has waiting when it closes, then nothing more', () => {
    const b = bus();
    const got = collector();
    b.subscribe(got.fn, { intervalMs: 60_000 });
    b.publish({ n: 1 });
    b.publish({ n: 2 });
    expect(got.batches).toEqual([]); // still waiting for its interval
    b.close();
    expect(got.batches.flat().map((x) => x.n)).toEqual([1, 2]);
    b.publish({ n: 3 });
    expect(got.batches.flat().map((x) => x.n)).toEqual([1, 2]);
  });

  it('stamps the seq on the record it was given, so the JSON text kept on it reaches the audit writer', () => {
    const b = new BoundedBus<{ seq: number; message: unknown }>();
    const message = { jsonrpc: '2.0', id: 1, result: {} };
    const record = { message };
    attachJsonText(record, message, 'TEXT-AS-WRITTEN');
    const published = b.publish(record);
    expect(published).toBe(record);
    expect(published.seq).toBe(1);
    expect(messageJsonText(b.snapshot()[0]!)).toBe('TEXT-AS-WRITTEN');
  });
});
