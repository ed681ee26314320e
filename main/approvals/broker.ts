// The approvals broker: where an APPROVAL verdict waits for a person.
//
// A call that needs approval blocks in place (the agent does not retry) until one attached
// approver answers, the timeout passes (DENY), or the agent cancels. Remembered grants are
// checked first, so a person is asked once per action (or per tool) and session, not per call.
// Every request and every outcome is emitted as an event: the host audits them from there.
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { ApprovalKindSchema } from '../../common/host-api-shapes';
import { SessionGrants, compileGrantPattern, type SessionGrant } from './session-grants';
import { actionFingerprint } from '../policy/fingerprint';
import type { ToolAnnotations } from '../policy/types';
import { InboxNotices } from './inbox-notices';
import { acceptAnswer, questionChoice, type QuestionKind } from './questions';

/** common/host-api-shapes.ts ApprovalKindSchema: tool, sampling, elicitation, resource, prompt. */
export type ApprovalKind = z.infer<typeof ApprovalKindSchema>;

export interface ApprovalRequest {
  /** Launch session id. */
  session: string;
  /** Downstream agent session; grants are scoped to it (or to the launch session without one). */
  agentSession?: string;
  /** The calling agent's name and version (per-agent token, else clientInfo), as the window shows them. */
  agentName?: string;
  agentVersion?: string;
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
  /**
   * What a person is asked to answer (sampling and elicitation through `ask`): the server's
   * `elicitation/create` or `sampling/createMessage` params, redacted. Absent for approvals.
   */
  question?: unknown;
  /** Canonical name of the tool call that caused a server→client request, when known. */
  triggerTool?: string;
  /**
   * Each call needs a person (the trifecta guard's gate, docs/data.md): no remembered grant
   * answers it, and an "allow for this session" answer allows this call only and remembers nothing.
   */
  perCall?: boolean;
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

export type ApprovalChoice = 'allow_once' | 'allow_session' | 'allow_tool_session' | 'deny' | 'accept' | 'decline' | 'cancel';

export interface ApprovalAnswer {
  choice: ApprovalChoice;
  /** Who answered: 'tty', 'ui', a user name… */
  by: string;
  note?: string;
  /**
   * A question's answer (accepted only): elicitation form content (field values); sampling
   * `{text}`, the assistant's reply. See questions.ts.
   */
  content?: unknown;
  /** With allow_tool_session: the grant covers only calls whose `arg` matches `pattern` (session-grants.ts). */
  narrow?: { arg: string; pattern: string };
}

/** A question for a person: the kind says how it is answered, `question` what is asked. */
export interface AskRequest extends Omit<ApprovalRequest, 'kind' | 'question'> {
  kind: QuestionKind;
  question: unknown;
}

/**
 * The person's answer as the protocol result the server gets (elicitation `{action: 'accept',
 * content?}`, sampling a CreateMessageResult), or why there is none.
 */
export type AskResult =
  | { answered: true; by: string; content: Record<string, unknown> }
  | { answered: false; how: 'declined' | 'cancelled' | 'timeout' | 'no_approver'; by?: string; reason: string };

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
  /** Set for a question (`ask`): answered with content, never by a grant. */
  ask?: AskState;
}

interface AskState {
  kind: QuestionKind;
  question: unknown;
  /** The protocol result, set by an accepted answer just before the entry settles. */
  result?: Record<string, unknown>;
}


export interface ApprovalBrokerOptions {
  /** Clock, for tests and for replayed sessions. Defaults to Date.now. */
  now?: () => number;
  /** Where a throwing event listener's error goes (listeners never break the broker). */
  onListenerError?: (err: unknown) => void;
  /** The reason given when no approver is attached (default NO_APPROVER_REASON). */
  noApproverReason?: string;
}

export class ApprovalBroker {
  /** One-line inbox notices beside the cards (e.g. what the approvals relay refused). */
  readonly notices = new InboxNotices();
  private readonly queue = new Map<string, Entry>(); // insertion order = request order
  private readonly grants: SessionGrants;
  private readonly listeners = new Set<(e: ApprovalEvent) => void>();
  private readonly attached = new Set<Approver>();
  private readonly approverListeners = new Set<(count: number) => void>();
  private readonly now: () => number;
  private readonly onListenerError: (err: unknown) => void;
  private readonly noApproverReason: string;

  constructor(options: ApprovalBrokerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.grants = new SessionGrants(() => this.now());
    this.onListenerError = options.onListenerError ?? (() => {});
    this.noApproverReason = options.noApproverReason ?? NO_APPROVER_REASON;
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
    const grant = req.perCall ? undefined : this.findGrant(grantScope, request);
    if (grant) return settleNow(grant);
    if (this.attached.size === 0) return settleNow({ approved: false, how: 'no_approver', reason: this.noApproverReason });

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
        () => this.settle(request.id, timeoutOutcome(timeoutMs)),
        timeoutMs,
      );
      // Only a shutdown should keep the process alive, never a forgotten prompt.
      entry.timer.unref?.();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'requested', request });
    });
  }

  /**
   * Asks a person a question (a server's sampling or elicitation request no connected client
   * can answer). Shares the queue, ids, timeouts and events with `request`; remembered grants
   * never answer a question. Resolves (never rejects) with the answer, or with why there is
   * none: declined or cancelled by the person, cancelled by the caller, timeout (unanswered =
   * decline), or no approver attached (fail closed).
   */
  ask(req: AskRequest, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<AskResult> {
    const createdAt = this.now();
    const timeoutMs = Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0 ? opts.timeoutMs : 0;
    const { fingerprint: given, kind, ...rest } = req;
    const request: PendingApproval = { ...rest, id: newId(), kind, createdAt, expiresAt: createdAt + timeoutMs };
    const fingerprint = given ?? tryFingerprint(req.tool, req.args);
    if (fingerprint !== undefined) request.fingerprint = fingerprint;
    const state: AskState = { kind, question: req.question };
    const toResult = (outcome: ApprovalOutcome): AskResult => {
      if (outcome.approved && state.result) return { answered: true, by: outcome.by ?? 'unknown', content: state.result };
      const how = outcome.how === 'cancelled' || outcome.how === 'timeout' || outcome.how === 'no_approver' ? outcome.how : 'declined';
      return { answered: false, how, ...(outcome.by !== undefined ? { by: outcome.by } : {}), reason: outcome.reason };
    };
    const settleNow = (outcome: ApprovalOutcome): Promise<AskResult> => {
      this.emit({ type: 'requested', request });
      this.emit({ type: 'resolved', request, outcome });
      return Promise.resolve(toResult(outcome));
    };
    if (opts.signal?.aborted) return settleNow(cancelledOutcome());
    if (this.attached.size === 0) return settleNow({ approved: false, how: 'no_approver', reason: this.noApproverReason });

    return new Promise<AskResult>((resolve) => {
      const onAbort = () => this.settle(request.id, cancelledOutcome());
      const entry: Entry = {
        request,
        grantScope: scopeKey(req.session, req.agentSession),
        ask: state,
        resolve: (outcome) => resolve(toResult(outcome)),
        cleanup: () => {
          if (entry.timer) clearTimeout(entry.timer);
          opts.signal?.removeEventListener('abort', onAbort);
        },
      };
      this.queue.set(request.id, entry);
      entry.timer = setTimeout(() => this.settle(request.id, timeoutOutcome(timeoutMs)), timeoutMs);
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
    if (entry.ask) return this.answerQuestion(id, entry.ask, answer, by, note);
    const { request } = entry;
    if (request.perCall && (answer.choice === 'allow_session' || answer.choice === 'allow_tool_session')) {
      return this.settle(id, { approved: true, how: 'once', by, reason: `allowed once by ${by}${note} (this approval is asked for each call, never remembered)` });
    }
    switch (answer.choice) {
      case 'allow_once':
        return this.settle(id, { approved: true, how: 'once', by, reason: `allowed once by ${by}${note}` });
      case 'deny':
        return this.settle(id, { approved: false, how: 'denied', by, reason: `denied by ${by}${note}` });
      case 'allow_session': {
        const ok = this.settle(id, { approved: true, how: 'session', by, reason: `allowed for this session (same arguments) by ${by}${note}` });
        // Without a fingerprint there is nothing safe to remember: it stays a one-off.
        if (request.fingerprint !== undefined) {
          this.grants.add(entry.grantScope, { grant: 'action', approvalKind: request.kind, tool: request.tool, by, fingerprint: request.fingerprint, args: request.args, ...named(request) });
        }
        this.settleGranted(entry.grantScope);
        return ok;
      }
      case 'allow_tool_session': {
        const narrow = answer.narrow;
        if (narrow !== undefined) {
          // A narrowed grant must compile and must cover the call being answered, else it is refused (nothing is granted).
          if (typeof narrow.arg !== 'string' || typeof narrow.pattern !== 'string') return false;
          try {
            if (!compileGrantPattern(narrow.pattern).test(String((request.args as Record<string, unknown> | undefined)?.[narrow.arg] ?? '\0'))) return false;
          } catch {
            return false;
          }
        }
        const what = narrow ? `${request.tool} with ${narrow.arg} matching ${narrow.pattern}` : request.tool;
        const ok = this.settle(id, { approved: true, how: 'tool_session', by, reason: `${what} allowed for this session by ${by}${note}` });
        this.grants.add(entry.grantScope, { grant: narrow ? 'pattern' : 'tool', approvalKind: request.kind, tool: request.tool, by, ...(narrow ? { arg: narrow.arg, pattern: narrow.pattern } : {}), ...named(request) });
        this.settleGranted(entry.grantScope);
        return ok;
      }
      default:
        return false;
    }
  }

  /**
   * The remembered grant that would answer `req` now, if any (what `request()` checks first).
   * Lets a broker subclass decide before asking elsewhere (the approvals relay).
   */
  grantFor(req: ApprovalRequest): ApprovalOutcome | undefined {
    if (req.perCall) return undefined;
    const { kind = 'tool', tool } = req;
    const fingerprint = req.fingerprint ?? tryFingerprint(req.tool, req.args);
    return this.findGrant(scopeKey(req.session, req.agentSession), { kind, tool, fingerprint, args: req.args });
  }

  /** Every remembered session grant, oldest first (the window's "Session grants", the host API). */
  listGrants(): SessionGrant[] {
    return this.grants.list();
  }

  /** Forget one grant; later calls it covered ask again. Undefined when there is no such grant. */
  revokeGrant(id: string): SessionGrant | undefined {
    return this.grants.revoke(id);
  }

  /**
   * Remembers a grant made elsewhere (a window answered through the approvals relay) exactly as
   * `answer()` would have: `session` binds the action's fingerprint (nothing without one),
   * `tool_session` the tool. Identical requests waiting here are settled by it.
   */
  remember(req: ApprovalRequest, how: 'session' | 'tool_session', by: string): void {
    if (req.perCall) return;
    const { kind = 'tool', tool } = req;
    const scope = scopeKey(req.session, req.agentSession);
    if (how === 'tool_session') this.grants.add(scope, { grant: 'tool', approvalKind: kind, tool, by, ...named(req) });
    else {
      const fingerprint = req.fingerprint ?? tryFingerprint(req.tool, req.args);
      if (fingerprint === undefined) return;
      this.grants.add(scope, { grant: 'action', approvalKind: kind, tool, by, fingerprint, args: req.args, ...named(req) });
    }
    this.settleGranted(scope);
  }

  /** Forget the grants of one agent session (it ended, or a person revoked them). */
  clearSession(agentSession: string): void {
    this.grants.clear((_s, a) => a === agentSession);
  }

  /** Forget every grant made under a launch session (the profile stopped). */
  clearLaunch(session: string): void {
    this.grants.clear((s) => s === session);
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
    this.approversChanged();
    return () => {
      if (this.attached.delete(token)) this.approversChanged();
    };
  }

  /**
   * Why an APPROVAL could not be answered right now (it would be denied at once), or undefined
   * when someone can answer. The capabilities report shows such tools as `unavailable`.
   */
  approvalUnavailable(): string | undefined {
    return this.attached.size === 0 ? this.noApproverReason : undefined;
  }

  /** Called with the number of attached approvers whenever one attaches or detaches. */
  onApproversChange(fn: (count: number) => void): () => void {
    this.approverListeners.add(fn);
    return () => {
      this.approverListeners.delete(fn);
    };
  }

  private approversChanged(): void {
    for (const fn of [...this.approverListeners]) {
      try {
        fn(this.attached.size);
      } catch (err) {
        try {
          this.onListenerError(err);
        } catch {}
      }
    }
  }

  approvers(): string[] {
    return [...this.attached].map((a) => a.name);
  }

  /** accept (or allow_once) with valid content, decline (or deny), cancel (elicitation only). */
  private answerQuestion(id: string, ask: AskState, answer: ApprovalAnswer, by: string, note: string): boolean {
    const choice = questionChoice(answer.choice);
    if (!choice) return false;
    if (choice === 'accept') {
      const check = acceptAnswer(ask.kind, ask.question, answer.content);
      if (!check.ok) return false;
      ask.result = check.result;
      // Outcomes keep the approval words (events, audit, relays): answered = once, declined = denied.
      return this.settle(id, { approved: true, how: 'once', by, reason: `answered by ${by}${note}` });
    }
    if (choice === 'cancel' && ask.kind === 'elicitation') return this.settle(id, { approved: false, how: 'cancelled', by, reason: `cancelled by ${by}${note}` });
    return this.settle(id, { approved: false, how: 'denied', by, reason: `declined by ${by}${note}` });
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
      if (entry.grantScope !== scope || entry.ask || entry.request.perCall) continue;
      const outcome = this.findGrant(scope, entry.request);
      if (outcome) this.settle(entry.request.id, outcome);
    }
  }

  private findGrant(scope: string, request: Pick<PendingApproval, 'kind' | 'tool' | 'fingerprint' | 'args'>): ApprovalOutcome | undefined {
    // Kind is part of the match, so allowing a tool never also allows, say, sampling under that name.
    const match = this.grants.find(scope, request);
    return match ? { approved: true, how: 'grant', by: match.by, reason: match.reason } : undefined;
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

function tryFingerprint(tool: string, args: unknown): string | undefined {
  try {
    return actionFingerprint(tool, args);
  } catch {
    return undefined;
  }
}

/** What a request that nobody answered in time resolves with. */
export function timeoutOutcome(timeoutMs: number): ApprovalOutcome {
  return { approved: false, how: 'timeout', reason: `no answer within ${seconds(timeoutMs)}s` };
}

export function cancelledOutcome(): ApprovalOutcome {
  return { approved: false, how: 'cancelled', reason: 'the call was cancelled before anyone answered' };
}

function newId(): string {
  return randomBytes(16).toString('base64url');
}

function seconds(ms: number): string {
  return String(Math.round(ms / 10) / 100);
}

/** The agent a grant was made for, as its approval named it (`grants list`, the window's panel). */
function named(req: { agentName?: string }): { agentName?: string } {
  return req.agentName !== undefined ? { agentName: req.agentName } : {};
}
