import { useMemo } from 'react';

/** Pretty-printed JSON in a scrollable monospace block; long strings wrap. */
export function JsonView({ value, maxHeight, label }: { value: unknown; maxHeight?: number; label?: string }) {
  const text = useMemo(() => stringify(value), [value]);
  return (
    <pre className="code-block json-view" style={maxHeight ? { maxHeight } : undefined} aria-label={label} tabIndex={0}>
      {text}
    </pre>
  );
}

export function stringify(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
