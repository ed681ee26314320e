// One launch's trust state (docs/trust.md): the gate the supervisor asks before a server
// starts, the filter the gateway runs its tool catalog through, and the decisions a person
// makes in the window. Pins themselves live in the TrustStore (the data directory); the guard
// watches that file, so `gatehouse trust accept` in another terminal takes effect at once:
// a held tool is advertised again, an approved server starts.
import { EventEmitter } from 'node:events';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedProfile, ServerSpec } from '../profiles/types';
import { canonicalName, toAdvertised, type SurfaceInput } from '../protocol/tool-names';
import { approveReview, changeSummary, holds, keepStoppedReview, reviewLaunch, reviewProfile, type LaunchReview } from './launch-consent';
import { PROFILE_REVIEW } from './profile-identity';
import type { OtherTool, TrustFlag } from './poisoning';
import type { TrustStore } from './pin-store';
import type { SandboxKind } from '../sandbox/types';
import { reviewTools, type HeldTool, type ToolReviewResult, type TrustMode } from './review-tools';
import { definitionDiff } from './tool-diff';
import type { ToolHold } from '../policy/capabilities';
import type { ToolDefinition } from './tool-definition';

/** What the guard needs of a supervisor: start a server that was held at the gate. */
export interface GuardedServers {
  get(id: string): { start(): Promise<void> } | undefined;
}

export interface ToolReviewItem {
  server: string;
  tool: string;
  canonical: string;
  change: 'new' | 'changed' | 'removed';
  status: 'pending' | 'rejected' | 'removed';
  hash?: string;
  previousHash?: string;
  reason: string;
  /** Unified diff of the approved and the offered definition. */
  diff: string;
  flags: TrustFlag[];
}

export interface TrustReviews {
  launch: LaunchReview[];
  tools: ToolReviewItem[];
}

export type TrustChoice = 'approve' | 'keep_stopped' | 'accept' | 'reject';

export function trustModeOf(spec: ServerSpec): TrustMode {
  return spec.kind === 'builtin' ? 'off' : spec.trust;
}

export class TrustGuard extends EventEmitter<{ changed: [] }> {
  private servers: GuardedServers | undefined;
  /** Servers the gate kept from starting, with the review that says why. */
  private readonly gated = new Map<string, LaunchReview>();
  /** Servers whose own identity is approved but that wait for the profile's (PROFILE_REVIEW). */
  private readonly heldByProfile = new Set<string>();
  private readonly toolReviews = new Map<string, ToolReviewResult>();
  private readonly unwatch: () => void;
  private readonly storeErrors = new Set<string>();

  constructor(
    readonly profile: ResolvedProfile,
    private readonly store: TrustStore,
    private readonly session: string | undefined,
    /** The PATH the launch's runs search (program-identity.ts launchSearchPath): programs are pinned as found on it. */
    private readonly searchPath: string,
    /** The sandbox kind this machine would run a strict server in: words on the review card only. */
    private readonly sandboxKind?: () => SandboxKind | undefined,
  ) {
    super();
    this.unwatch = store.watch(profile.name, () => this.onStoreChanged());
  }

  attach(servers: GuardedServers): void {
    this.servers = servers;
  }

  close(): void {
    this.unwatch();
    this.removeAllListeners();
  }

  // ---- launch consent ----------------------------------------------------------------------

  /** Undefined when `spec` may start; otherwise the reason it stays stopped (shown as its state reason). */
  startGate(spec: ServerSpec): string | undefined {
    let review: LaunchReview;
    try {
      // The profile's own identity first: a changed policy holds every server until approved.
      const profileReview = reviewProfile(this.profile, this.store);
      if (holds(profileReview)) {
        this.gated.set(PROFILE_REVIEW, profileReview);
        this.heldByProfile.add(spec.id);
        this.emit('changed');
        return `waiting for approval: ${changeSummary(profileReview)}; review it in the Servers view or with \`gatehouse trust diff --profile ${this.profile.name}\``;
      }
      if (this.gated.delete(PROFILE_REVIEW)) this.emit('changed');
      review = reviewLaunch(this.profile, spec, this.store, { searchPath: this.searchPath, sandboxKind: this.sandboxKind });
    } catch (err) {
      // An unreadable pin file fails closed: nothing starts that nobody can be shown to have approved.
      return `not started: the trust store cannot be read (${(err as Error).message})`;
    }
    if (review.status === 'approved') {
      if (this.gated.delete(spec.id)) this.emit('changed');
      return undefined;
    }
    this.gated.set(spec.id, review);
    this.emit('changed');
    if (review.status === 'kept_stopped') return 'kept stopped: its launch command is not approved (Approve it in the Servers view or with `gatehouse trust accept`)';
    return `waiting for approval: ${changeSummary(review)}; review it in the Servers view or run \`gatehouse trust accept --profile ${this.profile.name} --server ${spec.id}\``;
  }

  // ---- tool pinning ------------------------------------------------------------------------

  /**
   * The gateway's catalog goes through here: each server's tools in, the ones that may be
   * advertised out. Pins first-seen clean tools and keeps held definitions in the store.
   */
  filter(inputs: SurfaceInput[]): SurfaceInput[] {
    const everyone: OtherTool[] = inputs.flatMap((input) =>
      input.tools.map((tool) => {
        const canonical = canonicalName(input, tool);
        return { server: input.serverId, name: tool.name, canonical, advertised: toAdvertised(canonical) };
      }),
    );
    const out: SurfaceInput[] = [];
    let changed = false;
    for (const input of inputs) {
      const spec = this.profile.servers.find((s) => s.id === input.serverId);
      if (!spec || input.builtin || spec.kind === 'builtin') {
        out.push(input);
        continue;
      }
      let pin: ReturnType<TrustStore['server']>;
      try {
        pin = this.store.server(this.profile.name, input.serverId);
      } catch (err) {
        // Fail closed: without readable pins no tool of this server is advertised.
        if (!this.storeErrors.has(input.serverId)) process.stderr.write(`gatehouse trust: ${(err as Error).message}; tools of '${input.serverId}' are held back\n`);
        this.storeErrors.add(input.serverId);
        out.push({ ...input, tools: [] });
        continue;
      }
      this.storeErrors.delete(input.serverId);
      const result = reviewTools({
        server: input.serverId,
        mode: trustModeOf(spec),
        pinned: pin?.tools,
        rejected: pin?.rejectedTools ?? {},
        tools: input.tools,
        ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
        redact: (v) => this.profile.redactor.redactJson(v),
        others: everyone,
      });
      if (result.pin.length) {
        this.store.pinTools(this.profile.name, input.serverId, result.pin, pin?.tools ? 'gatehouse (accept-new)' : 'gatehouse (first listing after approval)', 'pinned', this.session);
      } else if (!pin?.tools && trustModeOf(spec) !== 'off') {
        this.store.markToolsSeen(this.profile.name, input.serverId);
      }
      for (const h of result.held) {
        if (h.status === 'pending') this.store.holdTool(this.profile.name, input.serverId, h.name, { hash: h.hash, definition: h.definition as never, seenAt: Date.now(), flags: h.flags }, this.session);
      }
      const before = this.toolReviews.get(input.serverId);
      if (reviewKey(before) !== reviewKey(result)) changed = true;
      this.toolReviews.set(input.serverId, result);
      out.push({ ...input, tools: result.advertised });
    }
    if (changed) queueMicrotask(() => this.emit('changed'));
    return out;
  }

  /** A held tool under any name a call may use (canonical, advertised, its own). */
  heldFor(called: string): (HeldTool & { server: string; canonical: string }) | undefined {
    const name = this.profile.aliases[called] ?? called;
    for (const [server, r] of this.toolReviews) {
      for (const h of r.held) {
        const canonical = `${server}.${h.name}`;
        if (name === canonical || name === toAdvertised(canonical) || name === h.name) return { ...h, server, canonical };
      }
    }
    return undefined;
  }

  /** Held tools as the capabilities tool lists them: unavailable, with the reason (hold `trust_review`). */
  heldCapabilities(): Array<{ canonical: string; advertised: string[]; server: string; title: string | undefined; annotations: Tool['annotations']; holds: ToolHold[] }> {
    const out = [];
    for (const [server, r] of this.toolReviews) {
      for (const h of r.held) {
        out.push({
          canonical: `${server}.${h.name}`,
          advertised: [],
          server,
          title: h.definition.title,
          annotations: h.definition.annotations as Tool['annotations'],
          holds: [{ code: 'trust_review' as const, reason: h.reason }],
        });
      }
    }
    return out;
  }

  // ---- servers held at the launch gate, as the agent sees them ---------------------------------

  /**
   * Servers the gate keeps stopped, each with the tool names its pins know from an earlier
   * approval (none for a server never approved), so an agent that calls one is told why
   * instead of "Unknown tool", and the capabilities tool lists them (docs/trust.md).
   */
  heldServers(): Array<{ server: string; reason: string; tools: Array<{ name: string; title?: string; annotations?: Tool['annotations'] }> }> {
    const out = [];
    for (const spec of this.profile.servers) {
      const review = this.gated.get(spec.id) ?? (this.heldByProfile.has(spec.id) ? this.gated.get(PROFILE_REVIEW) : undefined);
      if (!review) continue;
      let pinned: Record<string, { definition: Record<string, unknown> }> = {};
      try {
        pinned = this.store.server(this.profile.name, spec.id)?.tools ?? {};
      } catch {}
      const tools = Object.entries(pinned).map(([name, p]) => ({
        name,
        ...(typeof p.definition.title === 'string' ? { title: p.definition.title } : {}),
        ...(p.definition.annotations && typeof p.definition.annotations === 'object' ? { annotations: p.definition.annotations as Tool['annotations'] } : {}),
      }));
      const how = review.server === PROFILE_REVIEW ? `gatehouse trust accept --profile ${this.profile.name}` : `gatehouse trust accept --profile ${this.profile.name} --server ${spec.id}`;
      out.push({ server: spec.id, reason: `server ${spec.id} waits for launch approval (${changeSummary(review)}; a person approves it in the Gatehouse window or with \`${how}\`)`, tools });
    }
    return out;
  }

  /** The held server a called name belongs to: a pinned tool's name in any form, or the server's prefix. */
  heldServerFor(called: string): { server: string; canonical: string; reason: string } | undefined {
    const name = this.profile.aliases[called] ?? called;
    for (const h of this.heldServers()) {
      for (const t of h.tools) {
        const canonical = `${h.server}.${t.name}`;
        if (name === canonical || name === toAdvertised(canonical) || name === t.name) return { server: h.server, canonical, reason: h.reason };
      }
      if (name.startsWith(`${h.server}.`) || name.startsWith(`${h.server}_`)) return { server: h.server, canonical: name.replace(`${h.server}_`, `${h.server}.`), reason: h.reason };
    }
    return undefined;
  }

  /** Held servers' pinned tools as the capabilities tool lists them: unavailable, hold `trust_review`. */
  heldServerCapabilities(): Array<{ canonical: string; advertised: string[]; server: string; title: string | undefined; annotations: Tool['annotations']; holds: ToolHold[] }> {
    return this.heldServers().flatMap((h) =>
      h.tools.map((t) => ({ canonical: `${h.server}.${t.name}`, advertised: [], server: h.server, title: t.title, annotations: t.annotations, holds: [{ code: 'trust_review' as const, reason: h.reason }] })),
    );
  }

  // ---- what the window shows and decides ----------------------------------------------------

  reviews(): TrustReviews {
    const tools: ToolReviewItem[] = [];
    for (const [server, r] of this.toolReviews) {
      for (const h of r.held) {
        tools.push({
          server,
          tool: h.name,
          canonical: `${server}.${h.name}`,
          change: h.change,
          status: h.status,
          hash: h.hash,
          previousHash: h.previous?.hash,
          reason: h.reason,
          diff: definitionDiff(h.name, h.previous?.definition as unknown as ToolDefinition | undefined, h.definition),
          flags: h.flags,
        });
      }
      for (const rm of r.removed) {
        tools.push({
          server,
          tool: rm.name,
          canonical: `${server}.${rm.name}`,
          change: 'removed',
          status: 'removed',
          previousHash: rm.previous.hash,
          reason: 'approved before, no longer offered by the server',
          diff: definitionDiff(rm.name, rm.previous.definition as unknown as ToolDefinition, undefined),
          flags: [],
        });
      }
    }
    return { launch: [...this.gated.values()], tools };
  }

  /**
   * A person's decision. Launch: approve (pin the identity and start the server) or keep it
   * stopped. Tool: accept (pin the offered definition, or forget a removed one) or reject.
   */
  async decide(d: { server: string; tool?: string; choice: TrustChoice; by: string; hash?: string }): Promise<void> {
    const profile = this.profile.name;
    if (d.tool === undefined) {
      const review = this.gated.get(d.server) ?? this.launchReview(d.server);
      if (!review) throw new Error(`server '${d.server}' of profile '${profile}' is not waiting for launch approval`);
      if (d.hash !== undefined && d.hash !== review.hash) throw new Error(`the launch command of '${d.server}' changed since it was shown; review it again`);
      if (d.choice === 'approve') {
        approveReview(this.store, this.profile, review, d.by, this.session);
        this.gated.delete(d.server);
        this.emit('changed');
        if (d.server === PROFILE_REVIEW) await Promise.all(this.releaseHeldByProfile());
        else await this.servers?.get(d.server)?.start();
      } else if (d.choice === 'keep_stopped') {
        keepStoppedReview(this.store, this.profile, review, d.by, this.session);
        this.gated.set(d.server, { ...review, status: 'kept_stopped' });
        this.emit('changed');
      } else {
        throw new Error(`a launch is answered with approve or keep_stopped, not ${d.choice}`);
      }
      return;
    }
    const r = this.toolReviews.get(d.server);
    const held = r?.held.find((h) => h.name === d.tool);
    const removed = r?.removed.find((x) => x.name === d.tool);
    if (!held && !removed) throw new Error(`tool '${d.tool}' of server '${d.server}' is not waiting for review`);
    // The person decides on the definition they were shown: one swapped in since (a re-list
    // between showing and clicking) is refused, never pinned in its place.
    if (held && d.hash !== undefined && d.hash !== held.hash) throw new Error(`the definition of tool '${d.tool}' changed since it was shown; review it again`);
    if (d.choice === 'accept') {
      if (held) this.store.pinTools(profile, d.server, [{ name: held.name, hash: held.hash, definition: held.definition, flags: held.flags }], d.by, 'accepted', this.session);
      else this.store.unpinTools(profile, d.server, [d.tool], d.by, this.session);
    } else if (d.choice === 'reject') {
      if (!held) throw new Error(`tool '${d.tool}' was removed by its server; accept the removal to forget its pin`);
      this.store.rejectTool(profile, d.server, held.name, held.hash, d.by, this.session);
    } else {
      throw new Error(`a tool is answered with accept or reject, not ${d.choice}`);
    }
    this.emit('changed');
  }

  private launchReview(serverId: string): LaunchReview | undefined {
    if (serverId === PROFILE_REVIEW) {
      const review = reviewProfile(this.profile, this.store);
      return holds(review) ? review : undefined;
    }
    const spec = this.profile.servers.find((s) => s.id === serverId);
    if (!spec) return undefined;
    const review = reviewLaunch(this.profile, spec, this.store, { searchPath: this.searchPath, sandboxKind: this.sandboxKind });
    return review.status === 'approved' ? undefined : review;
  }

  /** The profile's identity was approved: start what only it held (their own gate asks again). */
  private releaseHeldByProfile(): Array<Promise<void>> {
    const ids = [...this.heldByProfile];
    this.heldByProfile.clear();
    return ids.map((id) => this.servers?.get(id)?.start() ?? Promise.resolve());
  }

  private onStoreChanged(): void {
    // Approved elsewhere (the CLI, another window): start what the gate held.
    if (this.gated.has(PROFILE_REVIEW)) {
      try {
        if (!holds(reviewProfile(this.profile, this.store))) {
          this.gated.delete(PROFILE_REVIEW);
          void Promise.all(this.releaseHeldByProfile());
        }
      } catch {}
    }
    for (const [id] of [...this.gated]) {
      const spec = this.profile.servers.find((s) => s.id === id);
      if (!spec) continue;
      if (reviewLaunch(this.profile, spec, this.store, { searchPath: this.searchPath, sandboxKind: this.sandboxKind }).status === 'approved') {
        this.gated.delete(id);
        void this.servers?.get(id)?.start();
      }
    }
    this.emit('changed');
  }
}

function reviewKey(r: ToolReviewResult | undefined): string {
  if (!r) return '';
  return JSON.stringify([r.held.map((h) => [h.name, h.hash, h.status]), r.removed.map((x) => x.name)]);
}

export type { Tool };
