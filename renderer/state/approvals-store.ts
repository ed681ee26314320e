// Pending approvals in the order they must be answered, plus a short history of answers.
//
// Order: oldest request first (createdAt), ties broken by arrival order, so a burst of calls
// reads top-to-bottom as the agent made them. A request leaves the queue when the host says
// it was resolved (answered here, elsewhere, timed out or cancelled); a request whose deadline
// passed without that event is kept, greyed out, for a short grace period and then pruned, so
// a lost event cannot leave a zombie card.
import { Store } from './store';
import type { ApprovalOutcome, PendingApproval } from './types';

export const EXPIRED_GRACE_MS = 5_000;
export const HISTORY_LIMIT = 200;

export interface ResolvedApproval {
  request: PendingApproval;
  outcome: ApprovalOutcome;
  at: number;
}

export interface ApprovalsState {
  pending: PendingApproval[];
  history: ResolvedApproval[];
  /** Ids with an answer on its way to the host (buttons disabled meanwhile). */
  answering: ReadonlySet<string>;
}

interface Entry {
  request: PendingApproval;
  arrival: number;
}

export function compareApprovals(a: Entry, b: Entry): number {
  return a.request.createdAt - b.request.createdAt || a.arrival - b.arrival;
}

/** Milliseconds left before the host denies the request by timeout (never negative). */
export function remainingMs(req: Pick<PendingApproval, 'expiresAt'>, now: number): number {
  return Math.max(0, req.expiresAt - now);
}

/** Share of the time still left, 1 → 0, for the countdown bar. */
export function remainingFraction(req: Pick<PendingApproval, 'createdAt' | 'expiresAt'>, now: number): number {
  const total = req.expiresAt - req.createdAt;
  if (total <= 0) return 0;
  return Math.max(0, Math.min(1, (req.expiresAt - now) / total));
}

export type Urgency = 'calm' | 'soon' | 'urgent' | 'expired';

export function urgency(req: Pick<PendingApproval, 'expiresAt'>, now: number): Urgency {
  const left = req.expiresAt - now;
  if (left <= 0) return 'expired';
  if (left <= 10_000) return 'urgent';
  if (left <= 30_000) return 'soon';
  return 'calm';
}

export class ApprovalsStore extends Store<ApprovalsState> {
  private entries = new Map<string, Entry>();
  private arrivals = 0;

  constructor() {
    super({ pending: [], history: [], answering: new Set() });
  }

  /** A snapshot from the host: the full pending set, in whatever order it came. */
  replace(requests: PendingApproval[]): void {
    const next = new Map<string, Entry>();
    for (const r of requests) next.set(r.id, { request: r, arrival: this.entries.get(r.id)?.arrival ?? this.arrivals++ });
    this.entries = next;
    this.publish();
  }

  add(request: PendingApproval): boolean {
    const had = this.entries.has(request.id);
    this.entries.set(request.id, { request, arrival: this.entries.get(request.id)?.arrival ?? this.arrivals++ });
    this.publish();
    return !had;
  }

  resolve(request: PendingApproval, outcome: ApprovalOutcome, at: number = Date.now()): void {
    this.entries.delete(request.id);
    const s = this.get();
    const answering = new Set(s.answering);
    answering.delete(request.id);
    const history = [{ request, outcome, at }, ...s.history.filter((h) => h.request.id !== request.id)].slice(0, HISTORY_LIMIT);
    this.set({ pending: this.sorted(), history, answering });
  }

  setAnswering(id: string, on: boolean): void {
    const answering = new Set(this.get().answering);
    if (on) answering.add(id);
    else answering.delete(id);
    this.set({ ...this.get(), answering });
  }

  /** Drops requests whose deadline passed more than the grace period ago. */
  prune(now: number): void {
    let changed = false;
    for (const [id, e] of this.entries) {
      if (e.request.expiresAt + EXPIRED_GRACE_MS < now) {
        this.entries.delete(id);
        changed = true;
      }
    }
    if (changed) this.publish();
  }

  private sorted(): PendingApproval[] {
    return [...this.entries.values()].sort(compareApprovals).map((e) => e.request);
  }

  private publish(): void {
    this.set({ ...this.get(), pending: this.sorted() });
  }
}
