// The approvals broker: where an APPROVAL verdict waits for a person.
//
// A call that needs approval blocks in place (the agent does not retry) until one attached
// approver answers, the timeout passes (DENY), or the agent cancels. Remembered grants are
// checked first, so a person is asked once per action (or per tool) and session, not per call.
// Every request and every outcome is emitted as an event: the host audits them from there.
import { randomBytes } from 'node:crypto';
import { actionFingerprint } from '../policy/fingerprint';
import type { ToolAnnotations } from '../policy/types';

export type ApprovalKind = 'tool' | 'sampling' | 'elicitation';

export interface ApprovalRequest {
  /** Launch session id. */
  session: string;
  /** Downstream agent session; grants are scoped to it (or to the launch session without one). */
  agentSession?: string;
  /** Traffic exchange id, for correlation in the UI and audit. */
  exchange?: string;
  /** Canonical tool name (for sampling, whatever name the gateway records, e.g. `files.sampling`). */
  tool: string;
  advertisedName?: string;
  server: string;
  /** Already redacted: this is what a person is shown. */
  args: unknown;
  annotations?: ToolAnnotations;
  /** Why the policy asked (one line). */
  reason: string;
  rule?: string;
  kind?: ApprovalKind;
  /**
   * Fingerprint of the *real* (unredacted) arguments, when the caller has them. Without it the
   * broker fingerprints `args`, and two calls whose secrets differ would share one "allow for
   * this session" grant, since they look the same once redacted.
   */
  fingerprint?: string;
}

export interface PendingApproval extends Omit<ApprovalRequest, 'fingerprint' | 'kind'> {
  /** Random and unguessable: answering needs the id, so it must not be predictable. */
  id: string;
  kind: ApprovalKind;
  /** SHA-256 of tool + canonical args; absent only if the args could not be canonicalised. */
  fingerprint?: string;
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
}

export type ApprovalHow = 'once' | 'session' | 'tool_session' | 'grant' | 'denied' | 'timeout' | 'no_approver' | 'cancelled';

export interface ApprovalOutcome {
  approved: boolean;
  how: ApprovalHow;
  by?: string;
  reason: string;
}

export type ApprovalChoice = 'allow_once' | 'allow_session' | 'allow_tool_session' | 'deny';

export interface ApprovalAnswer {
  choice: ApprovalChoice;
  /** Who answered: 'tty', 'ui', a user name… */
  by: string;
  note?: string;
}

export type ApprovalEvent =
  | { type: 'requested'; request: PendingApproval }
  | { type: 'resolved'; request: PendingApproval; outcome: ApprovalOutcome };

export interface Approver {
  name: string;
}

export const NO_APPROVER_REASON = 'approval required but no approver is attached (open the Gatehouse window or run in a terminal)';

interface Entry {
  request: PendingApproval;
  grantScope: string;
  resolve: (outcome: ApprovalOutcome) => void;
  timer?: ReturnType<typeof setTimeout>;
  cleanup: () => void;
}

interface Grants {
  /** fingerprint → who granted it */
  actions: Map<string, string>;
  /** kind + canonical tool → who granted it */
  tools: Map<string, string>;
}

export interface ApprovalBrokerOptions {
  /** Clock, for tests and for replayed sessions. Defaults to Date.now. */
  now?: () => number;
  /** Where a throwing event listener's error goes (listeners never break the broker). */
  onListenerError?: (err: unknown) => void;
}

export class ApprovalBroker {
  private readonly queue = new Map<string, Entry>(); // insertion order = request order
  private readonly grants = new Map<string, Grants>(); // grant scope → grants
  private readonly listeners = new Set<(e: ApprovalEvent) => void>();
  private readonly attached = new Set<Approver>();
  private readonly now: () => number;
  private readonly onListenerError: (err: unknown) => void;

  constructor(options: ApprovalBrokerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.onListenerError = options.onListenerError ?? (() => {});
  }

  /** Resolves with the outcome; never rejects. */
  request(req: ApprovalRequest, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<ApprovalOutcome> {
    const createdAt = this.now();
    const timeoutMs = Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0 ? opts.timeoutMs : 0;
    const { fingerprint: given, kind = 'tool', ...rest } = req;
    const request: PendingApproval = { ...rest, id: newId(), kind, createdAt, expiresAt: createdAt + timeoutMs };
    const fingerprint = given ?? tryFingerprint(req.tool, req.args);
    if (fingerprint !== undefined) request.fingerprint = fingerprint;
    const grantScope = scopeKey(req.session, req.agentSession);

    const settleNow = (outcome: ApprovalOutcome): Promise<ApprovalOutcome> => {
      this.emit({ type: 'requested', request });
      this.emit({ type: 'resolved', request, outcome });
      return Promise.resolve(outcome);
    };

    if (opts.signal?.aborted) return settleNow(cancelledOutcome());
    const grant = this.findGrant(grantScope, request);
    if (grant) return settleNow(grant);
    if (this.attached.size === 0) return settleNow({ approved: false, how: 'no_approver', reason: NO_APPROVER_REASON });

    return new Promise<ApprovalOutcome>((resolve) => {
      const onAbort = () => this.settle(request.id, cancelledOutcome());
      const entry: Entry = {
        request,
        grantScope,
        resolve,
        cleanup: () => {
          if (entry.timer) clearTimeout(entry.timer);
          opts.signal?.removeEventListener('abort', onAbort);
        },
      };
      this.queue.set(request.id, entry);
      entry.timer = setTimeout(
        () => this.settle(request.id, { approved: false, how: 'timeout', reason: `no answer within ${seconds(timeoutMs)}s` }),
        timeoutMs,
      );
      // Only a shutdown should keep the process alive, never a forgotten prompt.
      entry.timer.unref?.();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'requested', request });
    });
  }

  /** Requests waiting for an answer, oldest first. */
  pending(): PendingApproval[] {
    return [...this.queue.values()].map((e) => e.request);
  }

  get(id: string): PendingApproval | undefined {
    return this.queue.get(id)?.request;
  }

  /** First answer wins: false when the id is unknown or already resolved, or the answer is malformed. */
  answer(id: string, answer: ApprovalAnswer): boolean {
    const entry = this.queue.get(id);
    if (!entry || !answer || typeof answer.by !== 'string') return false;
    const by = answer.by;
    const note = typeof answer.note === 'string' && answer.note.trim() ? `: ${answer.note.replace(/\s+/g, ' ').trim()}` : '';
    const { request } = entry;
    switch (answer.choice) {
      case 'allow_once':
        return this.settle(id, { approved: true, how: 'once', by, reason: `allowed once by ${by}${note}` });
      case 'deny':
        return this.settle(id, { approved: false, how: 'denied', by, reason: `denied by ${by}${note}` });
      case 'allow_session': {
        const ok = this.settle(id, { approved: true, how: 'session', by, reason: `allowed for this session (same arguments) by ${by}${note}` });
        // Without a fingerprint there is nothing safe to remember: it stays a one-off.
        if (request.fingerprint !== undefined) this.bucket(entry.grantScope).actions.set(request.fingerprint, by);
        this.settleGranted(entry.grantScope);
        return ok;
      }
      case 'allow_tool_session': {
        const ok = this.settle(id, { approved: true, how: 'tool_session', by, reason: `${request.tool} allowed for this session by ${by}${note}` });
        this.bucket(entry.grantScope).tools.set(toolKey(request), by);
        this.settleGranted(entry.grantScope);
        return ok;
      }
      default:
        return false;
    }
  }

  /** Forget the grants of one agent session (it ended, or a person revoked them). */
  clearSession(agentSession: string): void {
    for (const key of [...this.grants.keys()]) if (key.split('\0')[1] === agentSession) this.grants.delete(key);
  }

  /** Forget every grant made under a launch session (the profile stopped). */
  clearLaunch(session: string): void {
    for (const key of [...this.grants.keys()]) if (key.split('\0')[0] === session) this.grants.delete(key);
  }

  onEvent(fn: (e: ApprovalEvent) => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  /**
   * While at least one approver is attached, APPROVAL waits for an answer; with none it is a
   * DENY at once. Detaching the last approver leaves pending requests waiting until their
   * timeout: a window that reloads or attaches late can still answer them.
   */
  attachApprover(approver: Approver): () => void {
    // Each attachment is its own token, so two approvers with the same name detach separately.
    const token: Approver = { name: approver.name };
    this.attached.add(token);
    return () => {
      this.attached.delete(token);
    };
  }

  approvers(): string[] {
    return [...this.attached].map((a) => a.name);
  }

  private settle(id: string, outcome: ApprovalOutcome): boolean {
    const entry = this.queue.get(id);
    if (!entry) return false;
    this.queue.delete(id);
    entry.cleanup();
    entry.resolve(outcome);
    this.emit({ type: 'resolved', request: entry.request, outcome });
    return true;
  }

  /** A fresh grant also answers identical requests already waiting (parallel calls of one action). */
  private settleGranted(scope: string): void {
    for (const entry of [...this.queue.values()]) {
      if (entry.grantScope !== scope) continue;
      const outcome = this.findGrant(scope, entry.request);
      if (outcome) this.settle(entry.request.id, outcome);
    }
  }

  private findGrant(scope: string, request: PendingApproval): ApprovalOutcome | undefined {
    const grants = this.grants.get(scope);
    if (!grants) return undefined;
    const byTool = grants.tools.get(toolKey(request));
    if (byTool !== undefined) return { approved: true, how: 'grant', by: byTool, reason: `${request.tool} was allowed for this session by ${byTool}` };
    const byAction = request.fingerprint !== undefined ? grants.actions.get(request.fingerprint) : undefined;
    if (byAction !== undefined) return { approved: true, how: 'grant', by: byAction, reason: `this action was allowed for this session by ${byAction}` };
    return undefined;
  }

  private bucket(scope: string): Grants {
    let g = this.grants.get(scope);
    if (!g) this.grants.set(scope, (g = { actions: new Map(), tools: new Map() }));
    return g;
  }

  private emit(e: ApprovalEvent): void {
    for (const fn of [...this.listeners]) {
      try {
        fn(e);
      } catch (err) {
        try {
          this.onListenerError(err);
        } catch {}
      }
    }
  }
}

function scopeKey(session: string, agentSession: string | undefined): string {
  return `${session}\0${agentSession ?? ''}`;
}

function toolKey(r: { kind: ApprovalKind; tool: string }): string {
  // Kind is part of the key so allowing a tool never also allows, say, sampling under that name.
  return `${r.kind}\0${r.tool}`;
}

function tryFingerprint(tool: string, args: unknown): string | undefined {
  try {
    return actionFingerprint(tool, args);
  } catch {
    return undefined;
  }
}

function cancelledOutcome(): ApprovalOutcome {
  return { approved: false, how: 'cancelled', reason: 'the call was cancelled before anyone answered' };
}

function newId(): string {
  return randomBytes(16).toString('base64url');
}

function seconds(ms: number): string {
  return String(Math.round(ms / 10) / 100);
}
