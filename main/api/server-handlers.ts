// Host-API commands on one server of a running launch: restart, stop, start, and its stderr tail.
import type { ApiContext } from './api-context';
import type { Handlers } from './errors';

export function serverHandlers(ctx: ApiContext) {
  const { host, shell, serverOf } = ctx;
  return {
    'servers:restart': async (input) => {
      await serverOf(input.launchId, input.serverId).restart();
      return { ok: true as const };
    },
    'servers:stop': async (input) => {
      await serverOf(input.launchId, input.serverId).stop(`stopped from the ${shell} window`);
      return { ok: true as const };
    },
    'servers:start': async (input) => {
      await serverOf(input.launchId, input.serverId).start();
      return { ok: true as const };
    },
    'logs:tail': (input) => {
      serverOf(input.launchId, input.serverId);
      const lines = host.stderrBus.snapshot().filter((l) => l.session === input.launchId && l.server === input.serverId);
      return lines.slice(-(input.limit ?? 500));
    },
  } satisfies Partial<Handlers>;
}
