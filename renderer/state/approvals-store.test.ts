import { describe, expect, it } from 'vitest';
import { ApprovalsStore, EXPIRED_GRACE_MS, remainingFraction, remainingMs, urgency } from './approvals-store';
import type { PendingApproval } from './types';

const req = (id: string, createdAt: number, ttl = 60_000): PendingApproval => ({
  id,
  session: 's1',
  tool: 'fs.write',
  server: 'workspace',
  args: { path: 'a.txt' },
  reason: 'needs approval',
  createdAt,
  expiresAt: createdAt + ttl,
});

describe('ApprovalsStore ordering', () => {
  it('queues oldest first, whatever order they arrive in', () => {
    const s = new ApprovalsStore();
    s.add(req('b', 2000));
    s.add(req('a', 1000));
    s.add(req('c', 3000));
    expect(s.get().pending.map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('breaks ties by arrival order', () => {
    const s = new ApprovalsStore();
    s.add(req('x', 1000));
    s.add(req('y', 1000));
    s.add(req('w', 1000));
    expect(s.get().pending.map((r) => r.id)).toEqual(['x', 'y', 'w']);
  });

  it('a repeated request updates in place and keeps its slot', () => {
    const s = new ApprovalsStore();
    expect(s.add(req('x', 1000))).toBe(true);
    s.add(req('y', 1000));
    expect(s.add({ ...req('x', 1000), reason: 'changed' })).toBe(false);
    expect(s.get().pending.map((r) => `${r.id}:${r.reason}`)).toEqual(['x:changed', 'y:needs approval']);
  });

  it('replace() keeps the arrival order of requests it already knew', () => {
    const s = new ApprovalsStore();
    s.add(req('x', 1000));
    s.add(req('y', 1000));
    s.replace([req('z', 1000), req('y', 1000), req('x', 1000)]);
    expect(s.get().pending.map((r) => r.id)).toEqual(['x', 'y', 'z']);
  });

  it('resolve() removes from the queue, records history newest first, clears answering', () => {
    const s = new ApprovalsStore();
    const a = req('a', 1000);
    const b = req('b', 2000);
    s.add(a);
    s.add(b);
    s.setAnswering('a', true);
    expect(s.get().answering.has('a')).toBe(true);
    s.resolve(a, { approved: true, how: 'once', reason: 'allowed once' }, 5000);
    s.resolve(b, { approved: false, how: 'timeout', reason: 'no answer' }, 6000);
    expect(s.get().pending).toEqual([]);
    expect(s.get().answering.has('a')).toBe(false);
    expect(s.get().history.map((h) => `${h.request.id}:${h.outcome.how}`)).toEqual(['b:timeout', 'a:once']);
  });

  it('prunes requests only after the deadline plus the grace period', () => {
    const s = new ApprovalsStore();
    s.add(req('a', 0, 10_000));
    s.add(req('b', 0, 60_000));
    s.prune(10_000 + EXPIRED_GRACE_MS);
    expect(s.get().pending.map((r) => r.id)).toEqual(['a', 'b']);
    s.prune(10_001 + EXPIRED_GRACE_MS);
    expect(s.get().pending.map((r) => r.id)).toEqual(['b']);
  });
});

describe('countdown', () => {
  const r = req('a', 10_000, 60_000);
  it('counts down to expiresAt and stops at zero', () => {
    expect(remainingMs(r, 10_000)).toBe(60_000);
    expect(remainingMs(r, 40_000)).toBe(30_000);
    expect(remainingMs(r, 90_000)).toBe(0);
  });
  it('gives the fraction left for the bar', () => {
    expect(remainingFraction(r, 10_000)).toBe(1);
    expect(remainingFraction(r, 40_000)).toBe(0.5);
    expect(remainingFraction(r, 100_000)).toBe(0);
    expect(remainingFraction({ createdAt: 5, expiresAt: 5 }, 0)).toBe(0);
  });
  it('grades urgency', () => {
    expect(urgency(r, 10_000)).toBe('calm');
    expect(urgency(r, 45_000)).toBe('soon');
    expect(urgency(r, 61_000)).toBe('urgent');
    expect(urgency(r, 70_000)).toBe('expired');
  });
});
