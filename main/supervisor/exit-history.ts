// Every exit of a server's process, kept for as long as the launch runs: when, how (code or
// signal), after how long, why we think it ended, and the stderr lines just before. A restart
// replaces the crash banner's "last exit"; this list is what a person reads afterwards to see
// that memory was SIGKILLed twice in ten minutes (Servers view, and one line per exit in Logs).
import type { ExitInfo, ExitRecord } from './types';

/** Enough to see a pattern; a crash-looping server is capped by max_restarts anyway. */
const MAX_EXITS = 50;
/** Lines of stderr kept with each exit. */
export const EXIT_STDERR_LINES = 20;

export class ExitHistory {
  private readonly exits: ExitRecord[] = [];

  record(run: number, info: ExitInfo, stderrTail: readonly string[]): ExitRecord {
    const entry: ExitRecord = { ...info, run, stderrTail: stderrTail.slice(-EXIT_STDERR_LINES) };
    this.exits.push(entry);
    if (this.exits.length > MAX_EXITS) this.exits.splice(0, this.exits.length - MAX_EXITS);
    return entry;
  }

  /**
   * One run's end: the ExitInfo shown as the server's last exit (with the reason noticed
   * before the exit, if any, in front), recorded here, and the line that says it in the log.
   */
  end(
    run: number,
    exit: { code: number | null; signal: string | null; reason: string },
    ctx: { startedAt?: number; pendingReason?: string; stderrTail: readonly string[] },
  ): { info: ExitInfo; line: string } {
    const now = Date.now();
    const uptimeMs = now - (ctx.startedAt ?? now);
    const reason = ctx.pendingReason ? `${ctx.pendingReason} (${exit.reason})` : exit.reason;
    const info: ExitInfo = { code: exit.code, signal: exit.signal, at: now, uptimeMs, reason };
    this.record(run, info, ctx.stderrTail);
    return { info, line: exitLogLine({ ...info, run }) };
  }

  /** Oldest first. */
  list(): ExitRecord[] {
    return this.exits.map((e) => ({ ...e, stderrTail: [...e.stderrTail] }));
  }
}

/**
 * The line written into the server's log for an exit, e.g.
 * "gatehouse: exited by SIGKILL after 12 s (run 1, crashed)".
 */
export function exitLogLine(e: Pick<ExitInfo, 'code' | 'signal' | 'uptimeMs' | 'reason'> & { run: number }): string {
  const how = e.signal ? `exited by ${e.signal}` : e.code !== null ? `exited with code ${e.code}` : 'ended';
  return `gatehouse: ${how} after ${formatUptime(e.uptimeMs)} (run ${e.run}, ${e.reason})`;
}

export function formatUptime(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
