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
