// Message bodies for the Traffic view (docs/ui-layout.md "Traffic's memory and render path"): the window keeps only each row's fields
// (summary, sizes, times, decision, status) and asks here for a body when it shows one (the
// detail pane, replay, diff, export) or searches over bodies. A body is kept once, in the
// host: the tap's ring for recent traffic, the audit store (SQLite) for what the ring let go.
import type { CommandInput, CommandOutput } from '../../common/host-api';
import type { AuditStore } from '../audit/store';
import type { TrafficTap } from '../protocol/traffic-tap';
import { messageJsonText } from '../protocol/json-text';

export interface BodySources {
  tap: TrafficTap;
  audit: AuditStore | undefined | null;
}

type Ref = CommandInput<'traffic:bodies'>['refs'][number];

export function trafficBodies(src: BodySources, refs: readonly Ref[]): CommandOutput<'traffic:bodies'> {
  const out: CommandOutput<'traffic:bodies'> = [];
  if (refs.length === 0) return out;
  // The ring's seqs are contiguous: one copy of its tail from the oldest seq asked for.
  const first = Math.min(...refs.map((r) => r.seq));
  const held = src.tap.snapshot({ afterSeq: first - 1 });
  const bySeq = new Map(held.map((ev) => [ev.seq, ev]));
  let flushed = false;
  for (const ref of refs) {
    const ev = bySeq.get(ref.seq);
    if (ev && ev.session === ref.session && ev.ts === ref.ts) {
      out.push({ seq: ref.seq, message: ev.message, found: true });
      continue;
    }
    // Let go by the ring: the audit row of that tap seq, found through its timestamp (indexed).
    const audit = src.audit;
    if (audit) {
      if (!flushed) audit.flush(); // what the tap saw a moment ago may still be queued
      flushed = true;
      const rows = audit.queryMessages({ session: ref.session, since: ref.ts, until: ref.ts + 1, limit: 1000 });
      const row = rows.find((r) => r.tapSeq === ref.seq);
      if (row) {
        out.push({ seq: ref.seq, message: row.message, found: true });
        continue;
      }
    }
    out.push({ seq: ref.seq, found: false });
  }
  return out;
}

/** The most matches one search returns (the window holds at most a few hundred thousand rows). */
const MAX_MATCHES = 100_000;

/**
 * Tap seqs of messages at or after `since` whose JSON contains `text` (case-insensitive, ASCII
 * folding as the audit's LIKE does): the ring first, then the audit store for older ones.
 */
export function searchTrafficBodies(src: BodySources, input: CommandInput<'traffic:search'>): CommandOutput<'traffic:search'> {
  const needle = input.text.toLowerCase();
  const sessions = input.sessions && input.sessions.length > 0 ? new Set(input.sessions) : undefined;
  const seqs = new Set<number>();
  const held = src.tap.snapshot();
  const ringFrom = held[0]?.ts ?? Infinity;
  for (const ev of held) {
    if (ev.ts < input.since || (sessions && !sessions.has(ev.session))) continue;
    const text = messageJsonText(ev);
    if (text !== undefined && text.toLowerCase().includes(needle)) seqs.add(ev.seq);
  }
  let complete = true;
  if (src.audit && input.since < ringFrom) {
    src.audit.flush();
    const rows = src.audit.queryMessages({ text: input.text, since: input.since, until: ringFrom, limit: 10_000, latest: true });
    if (rows.length === 10_000) complete = false;
    for (const r of rows) {
      if (r.tapSeq === undefined || (sessions && !sessions.has(r.session))) continue;
      seqs.add(r.tapSeq);
      if (seqs.size >= MAX_MATCHES) break;
    }
  } else if (!src.audit && input.since < ringFrom) complete = false;
  return { seqs: [...seqs].sort((a, b) => a - b), complete };
}
