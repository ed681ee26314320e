import { formatFullDate, formatTime } from './format-time';

/** The one way a moment is shown: `HH:MM:SS.mmm` local, full date and zone on hover. */
export function Timestamp({ ts, className }: { ts: number; className?: string }) {
  return (
    <time className={['ts', className].filter(Boolean).join(' ')} dateTime={new Date(ts).toISOString()} title={formatFullDate(ts)}>
      {formatTime(ts)}
    </time>
  );
}
