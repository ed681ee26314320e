// The buses' byte budgets (docs/gateway.md "Memory"): a thousand 1 MB messages must not be held because a
// thousand 200-byte ones would fit. The ring and each subscriber's queue are bounded in bytes,
// drops are counted, and `flushOn` delivers an item synchronously from publish().
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BoundedBus, type BatchInfo } from './bounded-bus';
import { TrafficTap } from './traffic-tap';

interface Item {
  seq: number;
  size: number;
}

const buses: BoundedBus<Item>[] = [];
const bus = (maxBytes: number): BoundedBus<Item> => {
  const b = new BoundedBus<Item>({ capacity: 10_000, name: 'bytes', sizeOf: (i) => i.size, maxBytes });
  buses.push(b);
  return b;
};
afterEach(() => {
  for (const b of buses.splice(0)) b.close();
});

describe('byte budgets', () => {
  it('the ring keeps at most maxBytes, oldest out first, and always the newest', () => {
    const b = bus(10_000_000);
    for (let i = 0; i < 100; i++) b.publish({ size: 1_000_000 });
    const st = b.stats();
    expect(st.heldBytes).toBeLessThanOrEqual(10_000_000);
    expect(st.held).toBe(10);
    expect(b.snapshot().map((x) => x.seq)).toEqual([91, 92, 93, 94, 95, 96, 97, 98, 99, 100]);
    b.publish({ size: 50_000_000 }); // bigger than the whole budget: kept alone
    expect(b.snapshot().map((x) => x.seq)).toEqual([101]);
  });

  it('small items still fill the ring by count', () => {
    const b = bus(10_000_000);
    for (let i = 0; i < 20_000; i++) b.publish({ size: 200 });
    expect(b.stats().held).toBe(10_000);
  });

  it('a subscriber that falls behind holds at most maxPendingBytes and is told how many it missed', async () => {
    const b = bus(100_000_000);
    const got: Array<{ batch: Item[]; info: BatchInfo }> = [];
    b.subscribe((batch, info) => got.push({ batch, info }), { intervalMs: 10, maxPendingBytes: 5_000_000 });
    for (let i = 0; i < 50; i++) b.publish({ size: 1_000_000 });
    await vi.waitFor(() => expect(got.length).toBeGreaterThan(0));
    expect(got[0]!.batch.length).toBe(5);
    expect(got[0]!.info.dropped).toBe(45);
    expect(b.stats().dropped).toBe(45);
  });

  it('flushOn delivers at once, from inside publish()', () => {
    const b = bus(100_000_000);
    const seen: number[] = [];
    b.subscribe((batch) => seen.push(...batch.map((x) => x.seq)), { intervalMs: 60_000, flushOn: (i) => i.size === 7 });
    b.publish({ size: 1 });
    b.publish({ size: 2 });
    expect(seen).toEqual([]);
    b.publish({ size: 7 });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('the traffic tap counts a message at twice its wire bytes', () => {
    const tap = new TrafficTap({ maxBytes: 10 * 1024 * 1024 });
    for (let i = 0; i < 50; i++) tap.publish({ ts: i, session: 's', direction: 'server_to_gateway', kind: 'notification', bytes: 1024 * 1024, message: {} });
    expect(tap.stats().held).toBeLessThanOrEqual(5);
    tap.close();
  });
});
