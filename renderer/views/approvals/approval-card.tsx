// One pending request: what is asked, by whom, with which arguments, how long is left, and
// the three answers. Used in the tray (compact) and in the Approvals view (roomy).
import { useCallback, useMemo, useRef, useState } from 'react';
import { Bot, Check, CheckCheck, FileText, MessageSquareText, ShieldQuestion, X } from 'lucide-react';
import { Badge } from '../../components/badge';
import { Button } from '../../components/button';
import { formatCountdown } from '../../components/format-time';
import { Timestamp } from '../../components/timestamp';
import { useNow } from '../../components/use-now';
import { remainingFraction, remainingMs, urgency } from '../../state/approvals-store';
import type { ApprovalChoice, PendingApproval } from '../../state/types';
import { DiffView } from './diff-view';
import { patchArgument } from './diff';
import { QuestionAnswer } from './question-card';
import { questionView } from './question';
import { originLabel } from './origin';
import { ArgumentList, Visible } from './argument-list';
import { cardTitle } from './card-text';
import { NarrowGrant } from './narrow-grant';

export const CHOICE_KEYS: Record<string, ApprovalChoice> = { a: 'allow_once', s: 'allow_session', d: 'deny', t: 'allow_tool_session' };

const ANNOTATION_LABEL: Record<string, { label: string; tone: 'ok' | 'warn' | 'danger' | 'neutral' | 'info'; when: boolean }> = {
  readOnlyHint: { label: 'read-only', tone: 'ok', when: true },
  destructiveHint: { label: 'destructive', tone: 'danger', when: true },
  idempotentHint: { label: 'idempotent', tone: 'neutral', when: true },
  openWorldHint: { label: 'open world', tone: 'warn', when: true },
};

export function AnnotationBadges({ annotations }: { annotations?: Record<string, unknown> }) {
  if (!annotations) return null;
  const items = Object.entries(annotations).flatMap(([k, v]) => {
    const a = ANNOTATION_LABEL[k];
    if (a) return v === a.when ? [<Badge key={k} tone={a.tone} title={`${k}: ${String(v)}`}>{a.label}</Badge>] : [];
    if (k === 'title') return [];
    return [<Badge key={k} title={`${k}: ${JSON.stringify(v)}`}>{k}</Badge>];
  });
  return items.length ? <span className="badge-row">{items}</span> : null;
}

export interface ApprovalCardProps {
  request: PendingApproval;
  position: number;
  total: number;
  answering: boolean;
  /** `content` answers a sampling / elicitation question (accept); `narrow` goes with allow_tool_session. */
  onAnswer: (choice: ApprovalChoice, content?: Record<string, unknown>, narrow?: { arg: string; pattern: string }) => void;
  onOpenExchange?: (exchange: string) => void;
  compact?: boolean;
}

export function ApprovalCard({ request: r, position, total, answering, onAnswer, onOpenExchange, compact }: ApprovalCardProps) {
  const now = useNow(250);
  const left = remainingMs(r, now);
  const frac = remainingFraction(r, now);
  const level = urgency(r, now);
  const expired = level === 'expired';
  const titleId = useRef(`appr-${r.id.replace(/[^A-Za-z0-9_-]/g, '_')}`).current;
  const patch = useMemo(() => patchArgument(r.tool, r.advertisedName, r.args), [r.tool, r.advertisedName, r.args]);
  const otherArgs = useMemo(() => {
    if (patch === null || typeof r.args !== 'object' || r.args === null) return r.args;
    const { patch: _p, ...rest } = r.args as Record<string, unknown>;
    return Object.keys(rest).length ? rest : undefined;
  }, [patch, r.args]);
  const kind = r.kind ?? 'tool';
  // A server's sampling / elicitation request that no agent client could answer: a person does.
  const question = useMemo(() => questionView(r), [r]);
  const KindIcon = kind === 'sampling' ? Bot : kind === 'elicitation' ? MessageSquareText : kind === 'resource' || kind === 'prompt' ? FileText : ShieldQuestion;
  const title = useMemo(() => cardTitle(r), [r]);
  // The host answers "allow for session" on such a request as once (main/approvals/broker.ts), so
  // the card does not offer what it would not do (docs/data.md "The trifecta guard").
  const perCall = r.perCall === true;
  // Relayed by a `gatehouse gateway` another MCP host runs (session `gateway:<pid>`).
  const origin = originLabel(r.session);
  // Allow waits until every argument has been on screen (argument-list.tsx); Deny never waits.
  // Not measured yet (null) counts as unseen: no Allow in the frame before the lists are measured.
  const [unseen, setUnseenState] = useState<{ unseen: number; total: number } | null>(null);
  const setUnseen = useCallback((n: number, total: number) => setUnseenState((s) => (s && s.unseen === n && s.total === total ? s : { unseen: n, total })), []);
  const [patchUnseen, setPatchUnseenState] = useState<number | null>(null);
  const setPatchUnseen = useCallback((n: number) => setPatchUnseenState(n), []);
  const argsUnseen = otherArgs !== undefined ? (unseen?.unseen ?? Infinity) : 0;
  const diffUnseen = patch !== null ? (patchUnseen ?? Infinity) : 0;
  const locked = !question && (argsUnseen > 0 || diffUnseen > 0);
  const measured = (otherArgs === undefined || unseen !== null) && (patch === null || patchUnseen !== null);
  const lockId = `${titleId}-lock`;
  const allowProps = { disabled: answering || expired || locked, ...(locked && measured ? { 'aria-describedby': lockId } : {}) };

  return (
    <article
      className={`approval-card urgency-${level}${compact ? ' is-compact' : ''}`}
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      aria-describedby={`${titleId}-reason`}
      data-approval-id={r.id}
      data-allow-locked={locked ? 'true' : undefined}
      tabIndex={-1}
    >
      <header className="approval-head">
        <KindIcon size={16} aria-hidden="true" className="approval-kind-icon" />
        <div className="approval-titles">
          <h3 id={titleId} className="approval-title">
            <span className="visually-hidden">Approval request: </span>
            {title.lead}
            <Visible text={title.name} oneLine />
          </h3>
          {title.flags.length ? (
            <span className="arg-flags approval-title-flags" aria-label="Flags of the name">
              {title.flags.map((f, k) => (
                <Badge key={k} tone="danger" title={f.kind}>
                  {f.message}
                </Badge>
              ))}
            </span>
          ) : null}
          <div className="approval-sub">
            {kind === 'tool' ? (
              <>
                <code className="mono" title="canonical name"><Visible text={r.tool} oneLine /></code>
                <span className="sep">·</span>
                <span>server <b>{r.server}</b></span>
              </>
            ) : kind === 'resource' || kind === 'prompt' ? (
              <>
                <span>{kind === 'resource' ? 'resources/read' : 'prompts/get'}</span>
                <span className="sep">·</span>
                <span>server <b>{r.server}</b></span>
              </>
            ) : question ? (
              <>
                <span>server <b>{r.server}</b></span>
                {r.triggerTool ? (
                  <>
                    <span className="sep">·</span>
                    <span>
                      during <code className="mono" title="the call that caused this request">{r.triggerTool}</code>
                    </span>
                  </>
                ) : null}
              </>
            ) : (
              <span>
                for the call <code className="mono">{r.tool}</code>
              </span>
            )}
            {origin ? (
              <>
                <span className="sep">·</span>
                <span className="approval-origin" title={`relayed by ${r.session}`}>{origin}</span>
              </>
            ) : null}
          </div>
        </div>
        {total > 1 ? <span className="approval-pos" aria-label={`Request ${position} of ${total}`}>{position}/{total}</span> : null}
      </header>

      <div className={`countdown countdown-${level}`}>
        <div className="countdown-track" aria-hidden="true">
          <div className="countdown-fill" style={{ transform: `scaleX(${frac})` }} />
        </div>
        <span className="countdown-text" role="timer" aria-label={expired ? 'Expired' : `${question ? 'Declined' : 'Denied'} automatically in ${formatCountdown(left)}`}>
          {expired ? 'expired' : formatCountdown(left)}
        </span>
      </div>

      <p className="approval-reason" id={`${titleId}-reason`}>
        <Visible text={r.reason} oneLine />
        {r.rule && !r.reason.includes(r.rule) ? <span className="muted"> ({r.rule})</span> : null}
      </p>

      <dl className="kv approval-meta">
        <dt>Requested</dt>
        <dd><Timestamp ts={r.createdAt} /></dd>
        {r.agentName ? (
          <>
            <dt>Agent</dt>
            <dd data-testid="approval-agent">
              {r.agentName}
              {r.agentVersion ? <span className="muted"> {r.agentVersion}</span> : null}
            </dd>
          </>
        ) : null}
        <dt>Agent session</dt>
        <dd className="mono">{r.agentSession ?? '—'}</dd>
        {r.exchange ? (
          <>
            <dt>Exchange</dt>
            <dd>
              {onOpenExchange ? (
                <button type="button" className="link mono" onClick={() => onOpenExchange(r.exchange as string)} aria-label={`Show exchange ${r.exchange} in Traffic`}>
                  {r.exchange}
                </button>
              ) : (
                <span className="mono">{r.exchange}</span>
              )}
            </dd>
          </>
        ) : null}
      </dl>
      <AnnotationBadges annotations={r.annotations} />

      {question ? (
        <QuestionAnswer view={question} idBase={titleId} disabled={answering || expired} compact={compact} onAnswer={onAnswer} />
      ) : (
        <>
          <div className="approval-args">
            {patch !== null ? <DiffView patch={patch} label="patch" maxHeight={compact ? 220 : 420} onUnseen={setPatchUnseen} resetKey={r.id} /> : null}
            {otherArgs !== undefined ? (
              <div>
                <div className="section-label">{patch !== null ? 'Other arguments' : kind === 'tool' || kind === 'prompt' ? 'Arguments' : 'Request'}</div>
                <ArgumentList value={otherArgs} maxHeight={compact ? 200 : 360} label="Arguments" resetKey={r.id} onUnseen={setUnseen} />
              </div>
            ) : null}
          </div>

          {locked && measured ? (
            <p className="approval-lock" id={lockId} role="status">
              Allow is disabled until every argument has been on screen:{' '}
              {[unseen && unseen.unseen > 0 ? `${unseen.unseen} of ${unseen.total} not shown yet` : '', diffUnseen > 0 ? `${diffUnseen} lines of the patch not shown yet` : ''].filter(Boolean).join('; ')}. Scroll through{' '}
              {diffUnseen > 0 ? 'them' : 'the arguments'}.
            </p>
          ) : null}
          {perCall ? (
            <p className="approval-per-call" data-testid="approval-per-call">
              Asked for each call: no grant for the session can be given here (S and T do nothing), so the next call like this one asks again.
            </p>
          ) : null}
          <footer className="approval-actions" aria-label="Answer">
            <Button variant="success" icon={<Check size={14} />} shortcut={compact ? undefined : 'A'} onClick={() => onAnswer('allow_once')} {...allowProps}>
              Allow once
            </Button>
            {perCall ? null : (
              <Button variant="secondary" icon={<CheckCheck size={14} />} shortcut={compact ? undefined : 'S'} onClick={() => onAnswer('allow_session')} {...allowProps} title="Allow this call with the same arguments for the rest of the agent session">
                Allow for session
              </Button>
            )}
            <Button variant="danger" icon={<X size={14} />} shortcut={compact ? undefined : 'D'} onClick={() => onAnswer('deny')} disabled={answering || expired}>
              Deny
            </Button>
            {kind === 'tool' && !perCall ? (
              <Button variant="ghost" size="sm" shortcut={compact ? undefined : 'T'} onClick={() => onAnswer('allow_tool_session')} {...allowProps} title={`Allow every call of ${r.tool} for the rest of the agent session`}>
                Allow tool for session
              </Button>
            ) : null}
            {kind === 'tool' && !compact && !perCall ? <NarrowGrant tool={r.tool} args={r.args} disabled={allowProps.disabled} onNarrow={(narrow) => onAnswer('allow_tool_session', undefined, narrow)} /> : null}
          </footer>
        </>
      )}
    </article>
  );
}
