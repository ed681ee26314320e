// Host-API commands that start and stop launches and tell an agent how to reach one: the
// client configuration files and the endpoint's bearer token (docs/gateway.md).
import type { Launch } from '../host';
import { ProfileError } from '../profiles/profile-error';
import type { ApiContext } from './api-context';
import { buildClientConfigs } from './connect-configs';
import { HostApiError, type Handlers } from './errors';
import { launchSummary } from './shapes';

export function launchHandlers(ctx: ApiContext) {
  const { host, shell, launchOf, runningLaunches } = ctx;
  return {
    'profiles:launch': async (input) => {
      let launch: Launch;
      try {
        // Every launch from a window serves Streamable HTTP on a free port, so an agent can connect.
        launch = await host.launch(input.ref, { toolSurface: input.toolSurface, httpPort: 0, kind: shell === 'web' ? 'serve' : 'launch', startAgent: true });
      } catch (err) {
        // A refused profile keeps its file:line:col text, exactly as the CLI prints it.
        if (err instanceof ProfileError) throw new HostApiError(err.message);
        throw new HostApiError(`cannot launch '${input.ref}': ${(err as Error).message}`);
      }
      return launchSummary(launch);
    },

    'profiles:stop': async (input) => {
      launchOf(input.launchId);
      await host.stop(input.launchId, `stopped from the ${shell} window`);
      return { ok: true as const };
    },

    'launches:list': () => runningLaunches().map(launchSummary),

    'connect:configs': (input) => {
      const launch = launchOf(input.launchId);
      return buildClientConfigs({
        url: launch.endpoint?.url,
        profileName: launch.profile.name,
        profileFile: launch.profile.file,
        dataDir: host.dataDir,
        workspace: launch.profile.workspace,
        ...(input.transport ? { transport: input.transport } : {}),
      });
    },

    'connect:token': (input) => {
      const launch = launchOf(input.launchId);
      if (!launch.token) throw new HostApiError(`launch '${input.launchId}' serves no HTTP endpoint, so it has no token`);
      return { token: launch.token };
    },
  } satisfies Partial<Handlers>;
}
