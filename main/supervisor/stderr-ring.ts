// A server's stderr as the supervisor keeps it: each line redacted once, as it arrives (before
// anything shows or stores it), the last STDERR_RING lines kept for its status and a late
// window, and every line published on the stderr bus for Logs and the audit writer.
import type { Redactor } from '../secrets/redactor';
import type { StderrBus } from '../protocol/traffic-tap';

export const STDERR_RING = 200;

export class StderrRing {
  private ring: string[] = [];

  constructor(
    private readonly opts: { redactor: Redactor; bus: Pick<StderrBus, 'publish'>; session: string; server: string },
  ) {}

  /** The kept lines, oldest first (redacted). */
  get lines(): readonly string[] {
    return this.ring;
  }

  tail(limit = STDERR_RING): string[] {
    return this.ring.slice(-limit);
  }

  append(run: number, raw: string): void {
    const line = this.opts.redactor.redactString(raw);
    this.ring.push(line);
    if (this.ring.length > STDERR_RING) this.ring.splice(0, this.ring.length - STDERR_RING);
    this.opts.bus.publish({ ts: Date.now(), session: this.opts.session, server: this.opts.server, run, line });
  }
}
