// Trust reviews of the active launch (docs/trust.md), above the server table: a server whose
// launch command is new or changed waits here with its exact command (untruncated, changed
// fields highlighted) and Approve / Keep stopped; a tool whose definition is new or changed
// since approved is held back, shown with a diff of old and new and the poisoning flags, for
// Accept / Reject. Refetched on `trust:changed`.
import { useEffect, useState } from 'react';
import { ShieldAlert, ShieldCheck } from 'lucide-react';
import type { CommandOutput } from '../../../common/host-api';
import { PROFILE_REVIEW_ID } from '../../../common/host-api-shapes';
import { useHostApi } from '../../api/context';
import { Badge } from '../../components/badge';
import { Button } from '../../components/button';
import { useToast } from '../../components/toasts';
import { DiffView } from '../approvals/diff-view';

type Reviews = CommandOutput<'trust:reviews'>;
type LaunchReview = Reviews['launch'][number];
type ToolReview = Reviews['tools'][number];
type Choice = 'approve' | 'keep_stopped' | 'accept' | 'reject';

export function TrustReview({ launchId }: { launchId: string }) {
  const api = useHostApi();
  const [reviews, setReviews] = useState<Reviews | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => api.on('trust:changed', (e) => e.launchId === launchId && setTick((t) => t + 1)), [api, launchId]);
  useEffect(() => {
    let live = true;
    api.call('trust:reviews', { launchId }).then(
      (r) => live && setReviews(r),
      () => live && setReviews(null),
    );
    return () => {
      live = false;
    };
  }, [api, launchId, tick]);
  if (!reviews || (reviews.launch.length === 0 && reviews.tools.length === 0)) return null;
  return (
    <section className="trust-reviews" aria-label="Trust reviews">
      {reviews.launch.map((r) => (
        <LaunchCard key={`launch-${r.server}`} launchId={launchId} review={r} />
      ))}
      {reviews.tools.map((t) => (
        <ToolCard key={`tool-${t.server}-${t.tool}`} launchId={launchId} review={t} />
      ))}
    </section>
  );
}

function useDecide(launchId: string) {
  const api = useHostApi();
  const toast = useToast();
  const [busy, setBusy] = useState<Choice | null>(null);
  const decide = async (serverId: string, choice: Choice, tool?: string, hash?: string): Promise<void> => {
    setBusy(choice);
    try {
      // The hash of what this card shows: the host refuses if what waits changed since.
      await api.call('trust:decide', { launchId, serverId, choice, ...(tool ? { tool } : {}), ...(hash ? { hash } : {}) });
    } catch (e) {
      toast.error(`Could not ${choice.replace('_', ' ')} ${tool ?? serverId}`, e);
    } finally {
      setBusy(null);
    }
  };
  return { busy, decide };
}

function LaunchCard({ launchId, review: r }: { launchId: string; review: LaunchReview }) {
  const { busy, decide } = useDecide(launchId);
  const before = new Map((r.previousLines ?? []).map((l) => [l.field, l.value]));
  const own = r.server === PROFILE_REVIEW_ID;
  const title = own
    ? r.status === 'kept_stopped'
      ? "This profile's policy: kept stopped, none of its servers start"
      : `This profile's policy and tool surface ${r.status === 'new' ? 'are new' : 'changed since approved'}: none of its servers start until approved`
    : r.status === 'new'
      ? `${r.server}: new launch command, not started`
      : r.status === 'changed'
        ? `${r.server}: launch command changed since approved, not started`
        : `${r.server}: kept stopped`;
  return (
    <article className="trust-card trust-card-launch" aria-label={own ? "Review of the profile's policy" : `Launch review of ${r.server}`}>
      <header className="trust-card-head">
        <ShieldAlert size={16} aria-hidden="true" />
        <h3 className="trust-card-title">{title}</h3>
        <Badge tone={r.status === 'changed' ? 'danger' : 'warn'}>{r.status.replace('_', ' ')}</Badge>
      </header>
      <p className="muted small">
        {own
          ? 'What every call of this profile may do: its policy, tool names and aliases, its workspace. None of its servers start until you approve it; the approval is pinned for this profile in this data directory.'
          : 'Read the exact command before it runs. It starts only once you approve it; the approval is pinned for this profile in this data directory.'}
      </p>
      <dl className="kv trust-identity">
        {r.lines.map((l) => {
          const changed = r.changed.includes(l.field);
          return (
            <div key={l.field} className={changed ? 'trust-line is-changed' : 'trust-line'} data-field={l.field}>
              <dt>{l.label}{changed ? <Badge tone="danger">changed</Badge> : null}</dt>
              <dd className="mono wrap" aria-label={l.label}>
                {changed && before.has(l.field) ? <del className="trust-old">{before.get(l.field)}</del> : null}
                {changed ? <ins className="trust-new">{l.value}</ins> : l.value}
              </dd>
            </div>
          );
        })}
      </dl>
      <div className="trust-card-actions">
        <Button variant="primary" icon={<ShieldCheck size={13} />} busy={busy === 'approve'} onClick={() => void decide(r.server, 'approve', undefined, r.hash)}>
          Approve
        </Button>
        {r.status !== 'kept_stopped' ? (
          <Button busy={busy === 'keep_stopped'} onClick={() => void decide(r.server, 'keep_stopped', undefined, r.hash)}>
            Keep stopped
          </Button>
        ) : null}
      </div>
    </article>
  );
}

function ToolCard({ launchId, review: t }: { launchId: string; review: ToolReview }) {
  const { busy, decide } = useDecide(launchId);
  const title =
    t.change === 'removed'
      ? `${t.canonical}: no longer offered by its server`
      : t.change === 'changed'
        ? `${t.canonical}: definition changed since approved, held back`
        : `${t.canonical}: new tool, held back`;
  return (
    <article className="trust-card trust-card-tool" aria-label={`Tool review of ${t.canonical}`}>
      <header className="trust-card-head">
        <ShieldAlert size={16} aria-hidden="true" />
        <h3 className="trust-card-title">{title}</h3>
        <Badge tone={t.status === 'rejected' ? 'danger' : t.change === 'removed' ? 'neutral' : 'warn'}>{t.status}</Badge>
      </header>
      <p className="muted small">{t.reason}</p>
      {t.flags.length ? (
        <ul className="trust-flags" aria-label={`Flags of ${t.canonical}`}>
          {t.flags.map((f, i) => (
            <li key={i} className={`trust-flag trust-flag-${f.severity}`}>
              <Badge tone={f.severity === 'hold' ? 'danger' : 'info'} mono>{f.kind}</Badge> {f.message}
            </li>
          ))}
        </ul>
      ) : null}
      <DiffView patch={t.diff} label={`Definition of ${t.canonical}: approved → now`} maxHeight={320} />
      <div className="trust-card-actions">
        <Button variant="primary" icon={<ShieldCheck size={13} />} busy={busy === 'accept'} onClick={() => void decide(t.server, 'accept', t.tool, t.hash)}>
          {t.change === 'removed' ? 'Acknowledge removal' : 'Accept'}
        </Button>
        {t.change !== 'removed' && t.status !== 'rejected' ? (
          <Button busy={busy === 'reject'} onClick={() => void decide(t.server, 'reject', t.tool, t.hash)}>
            Reject
          </Button>
        ) : null}
      </div>
    </article>
  );
}
