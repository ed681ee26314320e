// Catalog routing: what the gateway advertises (tools, prompts, resources, templates) and which
// server owns an advertised name or URI. One file, so a hook on the catalog (holding back
// tools, renaming) lands in one place. The list requests themselves are lifecycle requests of
// each server's SDK client; calls are forwarded by the call pipeline.
import { z } from 'zod';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, type Prompt, type Resource, type ResourceTemplate, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedProfile, ToolSurface } from '../profiles/types';
import type { Supervisor } from '../supervisor/supervisor';
import type { ManagedServer } from '../supervisor/managed-server';
import type { TrustGuard } from '../trust/trust-guard';
import { GatewayError } from './errors';
import { CAPABILITIES_TOOL, advertisedTools, buildSurface, type Surface, type SurfaceTool } from './tool-surface';
import { toAdvertised } from '../protocol/tool-names';
import { ToolSearch, lazyTools, type SearchHit } from './lazy-surface';
import type { HeldName, ToolDirectory } from './ports';

/** Upstream results are passed on as they came: parse nothing beyond "an object". */
export const LooseResult = z.looseObject({});

export class Catalog implements ToolDirectory {
  /** Last tool list seen per server: kept while a server restarts so tools/list stays stable. */
  private readonly knownTools = new Map<string, Tool[]>();
  /** The instructions of the run those tools came from (kept with them: they are pinned together). */
  private readonly knownInstructions = new Map<string, string | undefined>();
  private surface: Surface;
  private surfaceKey = '';
  private search: { surface: Surface; index: ToolSearch } | undefined;
  private promptOwners = new Map<string, { server: string; name: string }>();
  private resourceOwners = new Map<string, string>();
  private templateOwners: Array<{ template: UriTemplate; server: string }> = [];

  constructor(
    private readonly profile: ResolvedProfile,
    readonly surfaceKind: ToolSurface,
    private readonly supervisor: () => Supervisor | undefined,
    /** Tool pinning (main/trust/): new and changed definitions are held back until a person accepts them. */
    private readonly trust?: TrustGuard,
  ) {
    this.surface = this.computeSurface();
  }

  currentSurface(): Surface {
    return this.surface;
  }

  /** A server's tools changed: returns the new surface when what is advertised changed. */
  setTools(serverId: string, tools: Tool[], instructions?: string): void {
    this.knownTools.set(serverId, tools);
    this.knownInstructions.set(serverId, instructions);
  }

  /** Recomputes the surface; `changed` when the advertised list differs, `first` on the first computation. */
  refreshSurface(): { surface: Surface; changed: boolean; first: boolean } {
    const next = this.computeSurface();
    const key = JSON.stringify(advertisedTools(next));
    this.surface = next;
    if (key === this.surfaceKey) return { surface: next, changed: false, first: false };
    const first = this.surfaceKey === '';
    this.surfaceKey = key;
    return { surface: next, changed: true, first };
  }

  private capabilitiesTool(): SurfaceTool {
    const tool: Tool = {
      name: CAPABILITIES_TOOL,
      title: 'Gatehouse capabilities',
      description:
        'Lists every tool of this workspace with whether it is callable now, needs a person\'s approval, or is unavailable (server down or denied by policy), with a short summary of its constraints. Call it before planning work.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    };
    return { canonical: CAPABILITIES_TOOL, server: 'gatehouse', upstreamName: CAPABILITIES_TOOL, tool, advertised: [] };
  }

  /** A tool held back by tool pinning, by any name an agent may call it by (docs/trust.md). */
  heldFor(name: string): HeldName | undefined {
    return this.trust?.heldFor(name);
  }

  /** A server the launch gate keeps stopped, by any name of its tools (docs/trust.md). */
  heldServerFor(name: string): HeldName | undefined {
    return this.trust?.heldServerFor(name);
  }

  private computeSurface(): Surface {
    const listed = this.profile.servers
      .filter((s) => this.knownTools.has(s.id))
      .map((s) => {
        const instructions = this.knownInstructions.get(s.id);
        return { serverId: s.id, builtin: s.kind === 'builtin', tools: this.knownTools.get(s.id) ?? [], ...(instructions !== undefined ? { instructions } : {}) };
      });
    const inputs = this.trust ? this.trust.filter(listed) : listed;
    const extra = [this.capabilitiesTool(), ...(this.surfaceKind === 'lazy' ? lazyTools() : [])];
    return buildSurface(inputs, { surface: this.surfaceKind, aliases: this.profile.aliases, extra, alwaysListed: this.profile.alwaysListed ?? [] });
  }

  /** The ranked search of the lazy surface, over the current surface's tools (rebuilt when they change). */
  searchTools(query: string, limit?: number): SearchHit[] {
    if (this.search?.surface !== this.surface) {
      const tools = this.surface.tools.filter((t) => !t.canonical.startsWith('gatehouse.'));
      this.search = { surface: this.surface, index: new ToolSearch(tools) };
    }
    return this.search.index.search(query, limit);
  }

  // ---- prompts and resources ----------------------------------------------------------------

  readyServers(): ManagedServer[] {
    return [...(this.supervisor()?.servers.values() ?? [])].filter((s) => s.upstreamClient);
  }

  private async listAll<T>(server: ManagedServer, method: string, key: string): Promise<T[]> {
    const client = server.upstreamClient;
    if (!client) return [];
    const out: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = (await client.request({ method, params: cursor ? { cursor } : {} }, LooseResult, { timeout: server.spec.requestTimeoutMs })) as Record<string, unknown>;
      out.push(...((res[key] as T[]) ?? []));
      cursor = typeof res.nextCursor === 'string' ? res.nextCursor : undefined;
      if (!cursor) break;
    }
    return out;
  }

  async refreshCatalogs(serverId: string): Promise<void> {
    const server = this.supervisor()?.get(serverId);
    if (!server?.upstreamClient) return;
    const caps = server.upstreamClient.getServerCapabilities();
    try {
      if (caps?.resources) {
        const resources = await this.listAll<Resource>(server, 'resources/list', 'resources');
        for (const r of resources) this.resourceOwners.set(r.uri, serverId);
        const templates = await this.listAll<ResourceTemplate>(server, 'resources/templates/list', 'resourceTemplates');
        this.templateOwners = this.templateOwners.filter((t) => t.server !== serverId);
        for (const t of templates) this.templateOwners.push({ template: new UriTemplate(t.uriTemplate), server: serverId });
      }
    } catch {}
  }

  async listPrompts(): Promise<Prompt[]> {
    const perServer = await Promise.all(
      this.readyServers()
        .filter((s) => s.upstreamClient?.getServerCapabilities()?.prompts)
        .map(async (s) => ({ id: s.id, prompts: await this.listAll<Prompt>(s, 'prompts/list', 'prompts').catch(() => []) })),
    );
    // Same rule as tools: a prompt keeps its own name when unique, else `<server>_<name>`.
    const counts = new Map<string, number>();
    for (const p of perServer) for (const prompt of p.prompts) counts.set(prompt.name, (counts.get(prompt.name) ?? 0) + 1);
    const owners = new Map<string, { server: string; name: string }>();
    const out: Prompt[] = [];
    for (const p of perServer) {
      for (const prompt of p.prompts) {
        const name = counts.get(prompt.name) === 1 ? prompt.name : toAdvertised(`${p.id}.${prompt.name}`);
        owners.set(name, { server: p.id, name: prompt.name });
        out.push({ ...prompt, name });
      }
    }
    this.promptOwners = owners;
    return out;
  }

  /**
   * The server (and its own name) of an advertised prompt. A client may get a prompt without
   * listing first (it knows the name from an earlier session, or another session listed): the
   * prompt map is built on demand, then refreshed once before a name is called unknown.
   */
  async promptOwner(name: string): Promise<{ server: string; name: string }> {
    const owner = this.promptOwners.get(name) ?? (await this.listPrompts(), this.promptOwners.get(name));
    if (!owner) throw new GatewayError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return owner;
  }

  /** Every page of `method` from each ready server that offers resources, tagged with its server. */
  private async fromResourceServers<T>(method: string, key: string): Promise<Array<{ id: string; items: T[] }>> {
    return Promise.all(
      this.readyServers()
        .filter((s) => s.upstreamClient?.getServerCapabilities()?.resources)
        .map(async (s) => ({ id: s.id, items: await this.listAll<T>(s, method, key).catch(() => [] as T[]) })),
    );
  }

  async listResources(): Promise<Resource[]> {
    const out: Resource[] = [];
    for (const p of await this.fromResourceServers<Resource>('resources/list', 'resources')) {
      for (const r of p.items) {
        this.resourceOwners.set(r.uri, p.id);
        out.push(r);
      }
    }
    return out;
  }

  async listTemplates(): Promise<ResourceTemplate[]> {
    const out: ResourceTemplate[] = [];
    const owners: Array<{ template: UriTemplate; server: string }> = [];
    for (const p of await this.fromResourceServers<ResourceTemplate>('resources/templates/list', 'resourceTemplates')) {
      for (const t of p.items) {
        owners.push({ template: new UriTemplate(t.uriTemplate), server: p.id });
        out.push(t);
      }
    }
    this.templateOwners = owners;
    return out;
  }

  /** Resources route by URI: a listed resource, then a matching template, then the only resource server. */
  async resourceOwner(uri: string): Promise<string> {
    const known = this.resourceOwners.get(uri);
    if (known) return known;
    for (const t of this.templateOwners) if (t.template.match(uri)) return t.server;
    const withResources = this.profile.servers.filter((s) => this.supervisor()?.get(s.id)?.status().capabilities?.resources);
    if (withResources.length === 1) return withResources[0]!.id;
    // Not cached yet (or changed): refresh once, then give up with a clear error.
    await this.listResources();
    await this.listTemplates();
    const again = this.resourceOwners.get(uri) ?? this.templateOwners.find((t) => t.template.match(uri))?.server;
    if (again) return again;
    throw new GatewayError(ErrorCode.InvalidParams, `Resource not found: no server of this profile offers ${uri}`);
  }
}
