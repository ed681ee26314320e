// Helpers for gateway integration tests: an SDK client over Streamable HTTP, polling without
// timing assertions, and approvers driven from the test.
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Host, Launch } from '../../main/host';
import type { ApprovalChoice, PendingApproval } from '../../main/approvals/broker';

/** An SDK client connected to the launch's Streamable HTTP endpoint. */
export async function connectHttp(launch: Launch, options: ClientOptions = {}, name = 'test-agent'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), {
    requestInit: { headers: { Authorization: `Bearer ${launch.token!}` } },
  });
  await client.connect(transport);
  return client;
}

/** Polls until `check` returns a truthy value; generous limit, never a timing assertion. */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, limitMs = 20_000): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/**
 * Attaches an approver that answers each request with `choose(request)` (undefined = leave it
 * pending). Returns the requests a person was asked and a detach function.
 */
export function autoApprover(host: Host, choose: (req: PendingApproval) => ApprovalChoice | undefined, name = 'test') {
  const seen: PendingApproval[] = [];
  const detach = host.broker.attachApprover({ name });
  const off = host.broker.onEvent((e) => {
    // A request settled at once (a remembered grant, no approver) is announced too; only
    // the ones actually waiting for a person count as asked.
    if (e.type !== 'requested' || !host.broker.get(e.request.id)) return;
    seen.push(e.request);
    const choice = choose(e.request);
    if (choice) host.broker.answer(e.request.id, { choice, by: name });
  });
  return {
    seen,
    detach: () => {
      off();
      detach();
    },
  };
}
