// Host-API commands of the trust cards (docs/trust.md): a launch's pending launch and tool
// reviews, and the person's decision on one, recorded as the UI's session.
import type { ApiContext } from './api-context';
import { HostApiError, type Handlers } from './errors';

export function trustHandlers(ctx: ApiContext) {
  const { uiSession, launchOf } = ctx;
  return {
    'trust:reviews': (input) => {
      const launch = launchOf(input.launchId);
      const r = launch.trust.reviews();
      return {
        launchId: launch.id,
        profile: launch.profile.name,
        launch: r.launch.map((l) => ({ server: l.server, status: l.status, hash: l.hash, lines: l.lines, changed: l.changed, ...(l.previousLines ? { previousLines: l.previousLines } : {}) })),
        tools: r.tools.map((t) => ({ ...t, flags: t.flags.map((f) => ({ ...f })) })),
      };
    },
    'trust:decide': async (input) => {
      const launch = launchOf(input.launchId);
      try {
        await launch.trust.decide({ server: input.serverId, tool: input.tool, choice: input.choice, by: uiSession, ...(input.hash ? { hash: input.hash } : {}) });
      } catch (err) {
        throw new HostApiError((err as Error).message);
      }
      return { ok: true as const };
    },
  } satisfies Partial<Handlers>;
}
