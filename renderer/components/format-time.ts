// The one timestamp format of the app: `HH:MM:SS.mmm` in local time, with the full
// date on hover. Every view goes through these functions (or <Timestamp>), never toLocale*.

const pad2 = (n: number): string => String(n).padStart(2, '0');
const pad3 = (n: number): string => String(n).padStart(3, '0');

/** `14:03:07.042`, local time. */
export function formatTime(ts: number): string {
  if (!Number.isFinite(ts)) return '--:--:--.---';
  const d = new Date(ts);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${pad3(d.getMilliseconds())}`;
}

/** `2025-03-14 14:03:07.042 (UTC+01:00)`: the hover text, unambiguous across days and zones. */
export function formatFullDate(ts: number): string {
  if (!Number.isFinite(ts)) return 'unknown time';
  const d = new Date(ts);
  const offsetMin = -d.getTimezoneOffset();
  const sign = offsetMin >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMin);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${formatTime(ts)} (UTC${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)})`;
}

/**
 * A duration for uptimes and latencies: `840 ms`, `12.3 s`, `4m 05s`, `3h 02m`, `2d 04h`.
 * Negative or non-finite values read `—`.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.floor(s)} s`;
  const totalS = Math.floor(s);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m}m ${pad2(totalS % 60)}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${pad2(m % 60)}m`;
  return `${Math.floor(h / 24)}d ${pad2(h % 24)}h`;
}

/** A countdown: `0:42`, `12:05`, `1:00:00`; never negative. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}:${pad2(m)}:${pad2(s)}` : `${m}:${pad2(s)}`;
}

/** Bytes for humans: `812 B`, `4.2 KB`, `1.3 MB`. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
