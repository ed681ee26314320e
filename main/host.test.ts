import { describe, expect, it } from 'vitest';
import { retentionFromEnv } from './host';

describe('retentionFromEnv', () => {
  it('keeps the defaults when nothing is set', () => {
    expect(retentionFromEnv({})).toEqual({ maxAgeDays: 30, maxMessages: 1_000_000 });
  });
  it('takes overrides, with age 0 meaning no pruning by age', () => {
    expect(retentionFromEnv({ GATEHOUSE_AUDIT_MAX_AGE_DAYS: '0', GATEHOUSE_AUDIT_MAX_MESSAGES: '5000', GATEHOUSE_AUDIT_MAX_STDERR_LINES: '100' })).toEqual({
      maxAgeDays: undefined,
      maxMessages: 5000,
      maxStderrLines: 100,
    });
  });
  it('refuses nonsense with the variable named', () => {
    expect(() => retentionFromEnv({ GATEHOUSE_AUDIT_MAX_MESSAGES: 'lots' })).toThrow("GATEHOUSE_AUDIT_MAX_MESSAGES must be a non-negative number, got 'lots'");
  });
});

describe('Host trafficReplay', () => {
  it('bounds what the tap keeps for replay, and keeps the default otherwise', async () => {
    const { Host } = await import('./host');
    const os = await import('node:os');
    const fs = await import('node:fs');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-host-replay-'));
    try {
      const small = new Host({ dataDir: dir, audit: false, trafficReplay: 3 });
      const wide = new Host({ dataDir: dir, audit: false });
      for (let i = 0; i < 5; i++) {
        for (const h of [small, wide]) h.tap.publish({ ts: i, session: 'L', direction: 'agent_to_gateway', kind: 'notification', bytes: 2, message: {} });
      }
      expect(small.tap.snapshot().map((e) => e.ts)).toEqual([2, 3, 4]);
      expect(small.tap.stats()).toMatchObject({ held: 3, total: 5, evicted: 2 });
      expect(wide.tap.snapshot()).toHaveLength(5);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
