import type { ReactNode } from 'react';

export type Tone = 'neutral' | 'ok' | 'warn' | 'danger' | 'info' | 'accent';

export function Badge({ tone = 'neutral', children, title, mono }: { tone?: Tone; children: ReactNode; title?: string; mono?: boolean }) {
  return (
    <span className={`badge badge-${tone}${mono ? ' mono' : ''}`} title={title}>
      {children}
    </span>
  );
}

/** A count pill for navigation items; `label` is what a screen reader hears. */
export function CountBadge({ count, tone = 'accent', label }: { count: number; tone?: Tone; label: string }) {
  if (count <= 0) return null;
  return (
    <span className={`count-badge badge-${tone}`} aria-label={label} title={label}>
      {count > 99 ? '99+' : count}
    </span>
  );
}

const STATE_TONE: Record<string, Tone> = {
  ready: 'ok',
  starting: 'info',
  restarting: 'warn',
  stopping: 'warn',
  stopped: 'neutral',
  failed: 'danger',
  callable: 'ok',
  needs_approval: 'warn',
  denied: 'danger',
  unavailable: 'neutral',
  ALLOW: 'ok',
  APPROVAL: 'warn',
  DENY: 'danger',
};

export function toneFor(state: string | undefined): Tone {
  return (state && STATE_TONE[state]) || 'neutral';
}

/** A server or tool state with a coloured dot; pulsing while it is changing. */
export function StateBadge({ state, title }: { state: string; title?: string }) {
  const tone = toneFor(state);
  const busy = state === 'starting' || state === 'restarting' || state === 'stopping';
  return (
    <span className={`state-badge badge-${tone}`} title={title}>
      <span className={`dot dot-${tone}${busy ? ' dot-pulse' : ''}`} aria-hidden="true" />
      {state.replace(/_/g, ' ')}
    </span>
  );
}
