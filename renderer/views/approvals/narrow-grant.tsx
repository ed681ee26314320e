// "Allow tool for session", narrowed: the person picks one string argument and a pattern its
// whole value must match (e.g. write_file with path under docs/); later calls outside it ask
// again. Checked here as the host checks it (grant-narrow.ts), so a refused grant is seen first.
import { useId, useMemo, useState } from 'react';
import { Filter } from 'lucide-react';
import { Button } from '../../components/button';
import { checkPattern, narrowableArgs, suggestPattern } from './grant-narrow';

export interface NarrowGrantProps {
  tool: string;
  args: unknown;
  disabled: boolean;
  onNarrow: (narrow: { arg: string; pattern: string }) => void;
}

export function NarrowGrant({ tool, args, disabled, onNarrow }: NarrowGrantProps) {
  const names = useMemo(() => narrowableArgs(args), [args]);
  const [open, setOpen] = useState(false);
  const [arg, setArg] = useState(names[0] ?? '');
  const valueOf = (name: string) => String((args as Record<string, unknown>)[name] ?? '');
  const [pattern, setPattern] = useState(() => (names[0] ? suggestPattern(valueOf(names[0])) : ''));
  const id = useId();
  if (names.length === 0) return null;
  if (!open) {
    return (
      <Button variant="ghost" size="sm" icon={<Filter size={14} />} onClick={() => setOpen(true)} disabled={disabled} aria-expanded={false} title={`Allow ${tool} for the session only where one argument matches a pattern`}>
        Narrow…
      </Button>
    );
  }
  const check = checkPattern(pattern, valueOf(arg));
  return (
    <form
      className="narrow-grant"
      aria-label="Allow tool for session, narrowed"
      onSubmit={(e) => {
        e.preventDefault();
        if (check.ok && !disabled) onNarrow({ arg, pattern });
      }}
    >
      <label htmlFor={`${id}-arg`}>Only where</label>
      <select
        id={`${id}-arg`}
        className="input"
        value={arg}
        onChange={(e) => {
          setArg(e.target.value);
          setPattern(suggestPattern(valueOf(e.target.value)));
        }}
      >
        {names.map((n) => (
          <option key={n} value={n}>{n}</option>
        ))}
      </select>
      <label htmlFor={`${id}-pattern`}>matches</label>
      <input
        id={`${id}-pattern`}
        className="input mono"
        value={pattern}
        onChange={(e) => setPattern(e.target.value)}
        spellCheck={false}
        aria-invalid={!check.ok}
        aria-describedby={`${id}-check`}
      />
      <p id={`${id}-check`} className={check.ok ? 'muted' : 'narrow-grant-error'} role="status">
        {check.ok ? `The whole value must match; calls of ${tool} outside it ask again.` : `This pattern ${check.why}.`}
      </p>
      <Button type="submit" variant="secondary" size="sm" disabled={disabled || !check.ok}>
        Allow tool for session where {arg} matches
      </Button>
      <Button type="button" variant="ghost" size="sm" onClick={() => setOpen(false)}>
        Cancel
      </Button>
    </form>
  );
}
