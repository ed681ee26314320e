// Calls the host API from inside the page, over the page's own WebSocket to /api: the browser
// attaches the session cookie and the page's Origin, exactly as the app's client does. Used
// until the renderer's views cover a step (then specs drive the visible UI instead).
import type { Page } from '@playwright/test';
import type { CommandInput, CommandName, CommandOutput } from '../../../common/host-api';

export async function callFromPage<C extends CommandName>(page: Page, command: C, input: CommandInput<C>): Promise<CommandOutput<C>> {
  return page.evaluate(
    async ({ command, input }) =>
      new Promise<unknown>((resolve, reject) => {
        // Runs in the page (the root tsconfig has no DOM types, hence the loose globals).
        const g = globalThis as any;
        const ws = new g.WebSocket(`ws://${g.location.host}/api`);
        ws.onerror = () => reject(new Error('WebSocket to /api failed'));
        ws.onopen = () => ws.send(JSON.stringify({ type: 'call', id: 1, command, input }));
        ws.onmessage = (e: { data: unknown }) => {
          const msg = JSON.parse(String(e.data)) as { type: string; id?: number; ok?: boolean; output?: unknown; error?: string };
          if (msg.type !== 'result' || msg.id !== 1) return;
          ws.close();
          if (msg.ok) resolve(msg.output);
          else reject(new Error(msg.error));
        };
      }),
    { command, input: input as unknown },
  ) as Promise<CommandOutput<C>>;
}
