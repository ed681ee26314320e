// Timing helpers of the supervisor: restart backoff, waiting for a process group to go, and
// the startup timeout (its own error class, so a silent server can be told from a broken one).
import { groupAlive } from './reaper';

/** Exponential backoff with ±20% jitter, so a fleet of crashing servers does not restart in lockstep. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number): number {
  const base = Math.min(maxMs, initialMs * 2 ** attempt);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Resolves once no process of the group exists, or after maxMs (a zombie nobody reaps). */
export function waitGroupGone(pgid: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  return new Promise((resolve) => {
    const poll = (): void => {
      if (!groupAlive(pgid) || Date.now() >= deadline) return resolve();
      setTimeout(poll, 10);
    };
    poll();
  });
}

export class StartupTimeoutError extends Error {}

export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StartupTimeoutError(message)), ms);
    }),
  ]);
}
