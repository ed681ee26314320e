import type { ReactNode } from 'react';

/** A key cap. `hidden` keeps it out of the accessible name when it decorates a button. */
export function Kbd({ children, hidden }: { children: ReactNode; hidden?: boolean }) {
  return (
    <kbd className="kbd" aria-hidden={hidden || undefined}>
      {children}
    </kbd>
  );
}
