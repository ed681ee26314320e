import { describe, expect, it } from 'vitest';
import { decideRestart, type EndedRun } from './restart-decision';

const base: EndedRun = {
  reason: 'killed by SIGKILL',
  uptimeMs: 100,
  attempt: 0,
  policy: { maxRestarts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, resetAfterMs: 60_000 },
  permanent: false,
  stderrTail: [],
};

describe('decideRestart', () => {
  it('a run that reached a limit fails at once, with the cap as the reason (no restart loop)', () => {
    const d = decideRestart({ ...base, capReached: 'stopped: reached its process limit (256)' });
    expect(d).toEqual({ state: 'failed', attempt: 0, reason: 'stopped: reached its process limit (256); not restarted (raise `limits:` in the profile, or restart it by hand)' });
  });

  it('a crash restarts with backoff until max_restarts, then fails with the stderr tail', () => {
    const d = decideRestart(base);
    expect(d).toMatchObject({ state: 'restarting', attempt: 1 });
    expect(d.reason).toMatch(/^killed by SIGKILL; restart 1 of 5 in \d+\.\ds$/);
    expect(decideRestart({ ...base, attempt: 5, stderrTail: ['a', 'b'] })).toEqual({ state: 'failed', attempt: 5, reason: 'killed by SIGKILL; gave up after 5 restarts — stderr: a | b' });
    // A sustained uptime resets the count.
    expect(decideRestart({ ...base, attempt: 5, uptimeMs: 60_000 })).toMatchObject({ state: 'restarting', attempt: 1 });
    expect(decideRestart({ ...base, permanent: true }).reason).toBe('killed by SIGKILL; not restarted (restarting cannot fix this)');
  });
});
