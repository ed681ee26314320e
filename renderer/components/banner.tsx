import type { ReactNode } from 'react';
import { AlertTriangle, CircleAlert, Info, CheckCircle2 } from 'lucide-react';

type Tone = 'danger' | 'warn' | 'info' | 'ok';
const ICON = { danger: CircleAlert, warn: AlertTriangle, info: Info, ok: CheckCircle2 } as const;

/** An inline message block. `danger` ones are alerts (announced); the rest are status. */
export function Banner({ tone = 'info', title, children, actions }: { tone?: Tone; title?: ReactNode; children?: ReactNode; actions?: ReactNode }) {
  const Icon = ICON[tone];
  return (
    <div className={`banner banner-${tone}`} role={tone === 'danger' ? 'alert' : 'status'}>
      <Icon size={16} aria-hidden="true" className="banner-icon" />
      <div className="banner-body">
        {title ? <div className="banner-title">{title}</div> : null}
        {children}
      </div>
      {actions ? <div className="banner-actions">{actions}</div> : null}
    </div>
  );
}
