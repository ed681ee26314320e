// The result section under the Tool console's, Resources' and Prompts' forms: a head with what
// came back (a badge, ok or error), the link to the exchange in Traffic and any copy action, the
// error text if the call failed, then one block per part, each text or JSON.
import type { ReactNode, Ref } from 'react';
import { ArrowRight } from 'lucide-react';
import { navigate } from '../state/nav-store';
import { Badge } from './badge';
import { Button } from './button';
import { CopyButton } from './copy-button';

export interface ResultPanelProps {
  /** The section's heading ("Result", "Contents", "Messages"). */
  title: string;
  /** The section's accessible name. */
  label: string;
  failed: boolean;
  /** What the badge says (its tone follows `failed`). */
  badge: ReactNode;
  /** Shown right after the badge (e.g. the call's duration). */
  meta?: ReactNode;
  /** The exchange this result belongs to: a button opens its row in Traffic. */
  exchange?: string;
  /** Actions at the end of the head (e.g. a copy button). */
  actions?: ReactNode;
  /** The failure's text, shown as a block before the parts. */
  error?: string;
  ref?: Ref<HTMLElement>;
  children?: ReactNode;
}

export function ResultPanel({ title, label, failed, badge, meta, exchange, actions, error, ref, children }: ResultPanelProps) {
  return (
    <section ref={ref} className={`call-result${failed ? ' is-error' : ''}`} aria-label={label} aria-live="polite">
      <div className="section-head">
        <h3 className="section-title">{title}</h3>
        <Badge tone={failed ? 'danger' : 'ok'}>{badge}</Badge>
        {meta}
        <span className="spacer" />
        {exchange ? (
          <Button size="sm" variant="ghost" icon={<ArrowRight size={13} />} onClick={() => navigate('traffic', { exchange })} title="Show this exchange in Traffic">
            exchange <span className="mono">{exchange}</span>
          </Button>
        ) : null}
        {actions}
      </div>
      {error ? <pre className="code-block error-text">{error}</pre> : null}
      {children}
    </section>
  );
}

/** One part of a result, under its label. */
export function ResultBlock({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <div className="detail-block">
      <div className="section-label">{label}</div>
      {children}
    </div>
  );
}

/** A text part as it came (wrapped, not reflowed), with a copy button when `copy` names one. */
export function ResultText({ text, label, error, copy }: { text: string; label?: string; error?: boolean; copy?: string }) {
  return (
    <>
      <pre className={`code-block prewrap${error ? ' error-text' : ''}`} aria-label={label}>
        {text}
      </pre>
      {copy ? <CopyButton text={text} label={copy} /> : null}
    </>
  );
}
