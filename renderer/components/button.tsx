import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { Kbd } from './kbd';

type Variant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'success';
type Size = 'sm' | 'md';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  size?: Size;
  icon?: ReactNode;
  /** A key hint shown inside the button; kept out of the accessible name (aria-hidden). */
  shortcut?: string;
  busy?: boolean;
}

export function Button({ variant = 'secondary', size = 'md', icon, shortcut, busy, className, children, disabled, type, ...rest }: ButtonProps) {
  const cls = ['btn', `btn-${variant}`, `btn-${size}`, busy ? 'is-busy' : '', className ?? ''].filter(Boolean).join(' ');
  return (
    <button type={type ?? 'button'} className={cls} disabled={disabled || busy} aria-busy={busy || undefined} {...rest}>
      {icon ? <span className="btn-icon" aria-hidden="true">{icon}</span> : null}
      {children !== undefined ? <span className="btn-label">{children}</span> : null}
      {shortcut ? <Kbd hidden>{shortcut}</Kbd> : null}
    </button>
  );
}

export interface IconButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** Required: an icon-only control still needs a name. Also used as the tooltip. */
  label: string;
  icon: ReactNode;
  variant?: 'ghost' | 'secondary';
  pressed?: boolean;
}

export function IconButton({ label, icon, variant = 'ghost', pressed, className, type, ...rest }: IconButtonProps) {
  return (
    <button
      type={type ?? 'button'}
      className={['btn', `btn-${variant}`, 'btn-icon-only', className ?? ''].filter(Boolean).join(' ')}
      aria-label={label}
      title={label}
      aria-pressed={pressed}
      {...rest}
    >
      <span aria-hidden="true" className="btn-icon">{icon}</span>
    </button>
  );
}
