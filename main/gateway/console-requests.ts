// The window's own prompts and resources requests (the Resources and Prompts views,
// docs/ui-layout.md "Resources and Prompts"): they did not arrive on a downstream channel, so
// their exchange opens here, then they run the very path an agent's prompts/get or
// resources/read takes (Sessions.runForwarded: owner lookup, call pipeline, upstream channel).
// Policy treats them as it treats an agent's: the resource and prompt rules decide, a person
// is asked on APPROVAL, a denial is an error (docs/gateway.md "Resources and prompts under
// policy"); they are exchanges in Traffic and in the audit store all the same.
//
// Subscriptions: the window is one more subscriber next to the agent sessions. The upstream
// server is subscribed once per URI; it is unsubscribed only when neither the window nor any
// agent session still wants it (Sessions asks `wants`). Sessions creates it (session-setup.ts).
import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { Redactor } from '../secrets/redactor';
import type { Catalog } from './catalog';
import { GatewayError } from './errors';
import type { ExchangeTable } from './exchanges';
import type { ServerDirectory } from './ports';
import type { Sessions } from './session-setup';

export type ForwardedMethod = 'prompts/get' | 'resources/read';

export interface ConsoleRequestPorts {
  session: string;
  table: ExchangeTable;
  catalog: Catalog;
  sessions: Sessions;
  redactor: Redactor;
  /** The start-up barrier the lists wait behind, and the subscriptions sent upstream (Upstreams). */
  servers: Pick<ServerDirectory, 'firstStarts' | 'lifecycleRequest'>;
}

export class ConsoleRequests {
  /** URIs the window subscribed to, with how many of its views (windows) asked. */
  private readonly subscribed = new Map<string, number>();
  private readonly listeners = new Set<(uri: string) => void>();

  constructor(private readonly ports: ConsoleRequestPorts) {}

  async listResources(): Promise<Resource[]> {
    await this.ports.servers.firstStarts();
    return this.ports.redactor.redactJson(await this.ports.catalog.listResources());
  }

  async listTemplates(): Promise<ResourceTemplate[]> {
    await this.ports.servers.firstStarts();
    return this.ports.redactor.redactJson(await this.ports.catalog.listTemplates());
  }

  async listPrompts(): Promise<Prompt[]> {
    await this.ports.servers.firstStarts();
    return this.ports.redactor.redactJson(await this.ports.catalog.listPrompts());
  }

  /**
   * One prompts/get or resources/read as `agentSession`, exchange id `<agentSession>#<requestId>`.
   * Resolves with the (redacted) result; throws the server's or the gateway's error, redacted.
   */
  async forward(method: ForwardedMethod, params: Record<string, unknown>, agentSession: string, requestId: string): Promise<Record<string, unknown>> {
    const { table, redactor } = this.ports;
    const ex = table.openExchange({ kind: 'call', session: this.ports.session, agentSession, method, id: `${agentSession}#${requestId}` });
    if (method === 'resources/read' && typeof params.uri === 'string') table.update(ex, { tool: params.uri });
    try {
      // No progress token is ever sent from the window, so the sink is never asked for.
      const result = await this.ports.sessions.runForwarded(ex, method, params, (token) => ({ token, send: async () => {} }));
      return redactor.redactJson(result);
    } catch (err) {
      const message = redactor.redactString(err instanceof Error ? err.message : String(err));
      table.close(ex, 'error', { error: message });
      if (err instanceof GatewayError) throw new GatewayError(err.code, message, redactor.redactJson(err.data));
      throw new Error(message);
    }
  }

  async subscribe(uri: string): Promise<void> {
    const n = this.subscribed.get(uri) ?? 0;
    if (n === 0) {
      const owner = await this.ports.catalog.resourceOwner(uri);
      await this.ports.servers.lifecycleRequest(owner, 'resources/subscribe', { uri });
    }
    this.subscribed.set(uri, n + 1);
  }

  /** Unsubscribes upstream when this was the window's last interest and no agent session holds it. */
  async unsubscribe(uri: string): Promise<boolean> {
    const n = this.subscribed.get(uri) ?? 0;
    if (n === 0) return false;
    if (n > 1) {
      this.subscribed.set(uri, n - 1);
      return true;
    }
    this.subscribed.delete(uri);
    if (!this.ports.sessions.subscribedBySession(uri)) {
      const owner = await this.ports.catalog.resourceOwner(uri);
      await this.ports.servers.lifecycleRequest(owner, 'resources/unsubscribe', { uri });
    }
    return true;
  }

  subscriptions(): string[] {
    return [...this.subscribed.keys()];
  }

  wants(uri: string): boolean {
    return this.subscribed.has(uri);
  }

  /** A server said a subscribed resource changed (Sessions.resourceUpdated). */
  updated(uri: string): void {
    if (!this.subscribed.has(uri)) return;
    for (const l of this.listeners) l(uri);
  }

  onUpdated(listener: (uri: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
