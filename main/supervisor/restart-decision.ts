// What a crashed (not stopped) run leads to: failed for good, or a restart after a backoff.
// Kept apart from managed-server.ts so the rules read in one place.
import type { RestartPolicy } from '../profiles/types';
import { backoffDelay } from './run-timing';

export interface EndedRun {
  /** The run's end as the exit record says it. */
  reason: string;
  uptimeMs: number;
  /** Consecutive crashes so far (reset by a sustained uptime). */
  attempt: number;
  policy: RestartPolicy;
  /** Restarting cannot help: the command is missing, the sandbox cannot be had. */
  permanent: boolean;
  /**
   * The run reached one of its limits (main/sandbox/limits.ts). Permanent until the profile
   * changes: a fork bomb restarted would fork again, and each round costs the machine a cap's
   * worth of processes or memory. A person can still restart it by hand.
   */
  capReached?: string;
  stderrTail: readonly string[];
}

export type RestartDecision = { state: 'failed'; reason: string; attempt: number } | { state: 'restarting'; reason: string; attempt: number; delayMs: number };

export function decideRestart(r: EndedRun): RestartDecision {
  if (r.capReached) return { state: 'failed', attempt: r.attempt, reason: `${r.capReached}; not restarted (raise \`limits:\` in the profile, or restart it by hand)` };
  if (r.permanent) return { state: 'failed', attempt: r.attempt, reason: `${r.reason}; not restarted (restarting cannot fix this)` };
  const attempt = r.uptimeMs >= r.policy.resetAfterMs ? 0 : r.attempt;
  const max = r.policy.maxRestarts;
  if (attempt >= max) {
    const tail = r.stderrTail.slice(-3).join(' | ');
    const gaveUp = max === 0 ? 'restarts are off (max_restarts: 0)' : `gave up after ${attempt} restart${attempt === 1 ? '' : 's'}`;
    return { state: 'failed', attempt, reason: `${r.reason}; ${gaveUp}${tail ? ` — stderr: ${tail}` : ''}` };
  }
  const delayMs = backoffDelay(attempt, r.policy.initialBackoffMs, r.policy.maxBackoffMs);
  return { state: 'restarting', attempt: attempt + 1, delayMs, reason: `${r.reason}; restart ${attempt + 1} of ${max} in ${(delayMs / 1000).toFixed(1)}s` };
}
