// Host-API commands of the Traffic view beyond the live batches: full message bodies (live
// buffer, then the audit store), body search, and the person's pins and replay links.
import type { ApiContext } from './api-context';
import type { Handlers } from './errors';
import { buildHar, curlFor } from './har-export';
import { searchTrafficBodies, trafficBodies } from './traffic-bodies';
import type { TrafficMarks } from './traffic-marks';

export function trafficHandlers(ctx: ApiContext, marks: TrafficMarks) {
  const { host } = ctx;
  return {
    'traffic:bodies': (input) => trafficBodies({ tap: host.tap, audit: host.audit }, input.refs),
    'traffic:search': (input) => searchTrafficBodies({ tap: host.tap, audit: host.audit }, input),
    'traffic:marks': () => marks.list(),
    'traffic:pin': (input) => {
      marks.setPinned(input.row, input.pinned);
      return { ok: true as const };
    },
    'traffic:linkReplay': (input) => {
      marks.linkReplay(input);
      return { ok: true as const };
    },
    'traffic:har': (input) => buildHar({ tap: host.tap, audit: host.audit, launch: host.launches.get(input.session) }, input),
    'traffic:curl': (input) => ({ command: curlFor({ tap: host.tap, audit: host.audit, launch: host.launches.get(input.session) }, input) }),
  } satisfies Partial<Handlers>;
}
