// Host-API commands of the Resources and Prompts views: the lists an agent would get, and
// resources/read and prompts/get sent through the gateway as the UI's own session, so each is an
// exchange in Traffic and the audit store like a Tool console call (tool-handlers.ts). A
// server's error is shown to the person as text, never thrown.
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CommandOutput } from '../../common/host-api';
import type { ApiContext } from './api-context';
import type { Handlers } from './errors';

function errorLine(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  return err instanceof McpError || typeof code === 'number' ? `${message} (code ${String(code)})` : message;
}

export function resourceHandlers(ctx: ApiContext) {
  const { uiSession, launchOf } = ctx;
  let count = 0;
  /** Request ids of their own (`ui-web#resource-3`), distinct from the Tool console's `console-N`. */
  const nextId = (kind: 'resource' | 'prompt') => `${kind}-${++count}`;
  return {
    'resources:list': async (input) => {
      const gw = launchOf(input.launchId).gateway;
      const [resources, templates] = await Promise.all([gw.console.listResources(), gw.console.listTemplates()]);
      return { resources, templates, subscribed: gw.console.subscriptions() } as CommandOutput<'resources:list'>;
    },

    'resources:read': async (input) => {
      const gw = launchOf(input.launchId).gateway;
      const requestId = nextId('resource');
      const exchange = `${uiSession}#${requestId}`;
      try {
        const result = await gw.console.forward('resources/read', { uri: input.uri }, uiSession, requestId);
        return { result: result as CommandOutput<'resources:read'>['result'], exchange };
      } catch (err) {
        return { error: errorLine(err), exchange };
      }
    },

    'resources:subscribe': async (input) => {
      const gw = launchOf(input.launchId).gateway;
      if (input.subscribed) await gw.console.subscribe(input.uri);
      else await gw.console.unsubscribe(input.uri);
      return { subscribed: gw.console.subscriptions() };
    },

    'prompts:list': async (input) => (await launchOf(input.launchId).gateway.console.listPrompts()) as CommandOutput<'prompts:list'>,

    'prompts:get': async (input) => {
      const gw = launchOf(input.launchId).gateway;
      const requestId = nextId('prompt');
      const exchange = `${uiSession}#${requestId}`;
      try {
        const result = await gw.console.forward('prompts/get', { name: input.name, arguments: input.arguments }, uiSession, requestId);
        return { result: result as CommandOutput<'prompts:get'>['result'], exchange };
      } catch (err) {
        return { error: errorLine(err), exchange };
      }
    },
  } satisfies Partial<Handlers>;
}
