// A row's message for the detail pane: the row's own, or the host's (fetched on first use).
import { useEffect, useSyncExternalStore } from 'react';
import type { BodyState, TrafficBodies, TrafficRow } from '../../lib/traffic-store';

export function useBody(bodies: TrafficBodies, row: TrafficRow | undefined): BodyState | undefined {
  useSyncExternalStore(
    (l) => bodies.subscribe(l),
    () => bodies.version,
  );
  useEffect(() => {
    if (row?.remote) void bodies.load([row]);
  }, [bodies, row]);
  return row ? bodies.peek(row) : undefined;
}
