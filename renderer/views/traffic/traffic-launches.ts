// The launches as the Traffic view reads them: ids, profile names, start times and server ids
// (the launch filter, the server facet, HAR export, jumps to an exchange). Every agent that
// connects or leaves re-sends its launch (`launch:changed` carries the agent sessions); a new
// array for each would re-render Traffic, list and all, outside the frame budget that paces its
// refreshes under a flood (frame-budget.ts). Measured with sequential SDK clients (bench:ui):
// 27.6 list refreshes/s against 8-10 for the other load shapes, and 17 fps against the control's 60.
import { useRef } from 'react';
import type { LaunchSummary } from './traffic-view';

const keyOf = (list: readonly LaunchSummary[]): string => list.map((l) => `${l.id}\u0000${l.profile}\u0000${l.startedAt}\u0000${l.servers.map((s) => s.id).join('\u0001')}`).join('\n');

/** `list`, or the array last returned while the parts Traffic reads are the same. */
export function useTrafficLaunches(list: readonly LaunchSummary[]): readonly LaunchSummary[] {
  const held = useRef<{ key: string; list: readonly LaunchSummary[] } | undefined>(undefined);
  const key = keyOf(list);
  if (!held.current || held.current.key !== key) held.current = { key, list };
  return held.current.list;
}
