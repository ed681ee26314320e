// What the profile card says about a running launch beyond its servers' states: how many
// servers wait for a person's trust review (docs/trust.md; the cards are on the Servers view),
// and whether the profile file was edited on disk since launch (main/api/profile-watch.ts).
import { useEffect, useState } from 'react';
import type { EventPayload } from '../../../common/host-api';
import { useHostApi } from '../../api/context';

export type ProfileChange = EventPayload<'profile:changed'>;

/** Servers of a launch that wait for launch approval; refetched on `trust:changed`. */
export function useReviewCount(launchId: string | undefined): number {
  const api = useHostApi();
  const [count, setCount] = useState(0);
  const [tick, setTick] = useState(0);
  useEffect(() => (launchId ? api.on('trust:changed', (e) => e.launchId === launchId && setTick((t) => t + 1)) : undefined), [api, launchId]);
  useEffect(() => {
    if (!launchId) return setCount(0);
    let live = true;
    api.call('trust:reviews', { launchId }).then(
      (r) => live && setCount(r.launch.filter((l) => l.status === 'new' || l.status === 'changed').length),
      () => live && setCount(0),
    );
    return () => {
      live = false;
    };
  }, [api, launchId, tick]);
  return count;
}

/** Launches whose profile changed on disk, by launch id: the host's list, then its events. */
export function useProfileChanges(): Record<string, ProfileChange> {
  const api = useHostApi();
  const [changes, setChanges] = useState<Record<string, ProfileChange>>({});
  useEffect(() => {
    let live = true;
    const apply = (c: ProfileChange) =>
      setChanges(({ [c.launchId]: _old, ...rest }) => (c.changed ? { ...rest, [c.launchId]: c } : rest));
    const off = api.on('profile:changed', apply);
    api.call('profiles:changes', {}).then(
      (list) => live && list.forEach(apply),
      () => {},
    );
    return () => {
      live = false;
      off();
    };
  }, [api]);
  return changes;
}
