// Pins live in the data directory (docs/trust.md), one JSON file per profile under
// `<data>/trust/<profile>.json`, keyed by server id: the same profile on another machine (or
// another data dir) starts by asking again; `gatehouse trust export|import` moves them on purpose.
//
// Writers: the host (a window's Approve, first-sight tool pins, held definitions) and the CLI
// (`gatehouse trust accept`), possibly at once. Each change re-reads the file, applies itself
// and replaces the file atomically (write + rename), so a reader never sees half a file; two
// changes at the same instant may race, and the later one wins whole (the audit store keeps both).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { LaunchIdentity } from './identity';
import type { ToolDefinition } from './tool-definition';
import type { TrustFlag } from './poisoning';

const FlagSchema = z.object({ kind: z.string(), severity: z.enum(['hold', 'note']), message: z.string() });
const PinnedToolSchema = z.object({ hash: z.string(), definition: z.record(z.string(), z.unknown()), approvedAt: z.number(), approvedBy: z.string() });
const PendingToolSchema = z.object({ hash: z.string(), definition: z.record(z.string(), z.unknown()), seenAt: z.number(), flags: z.array(FlagSchema) });

export const ServerPinSchema = z.object({
  /** The approved launch identity (absent: never approved, e.g. only kept stopped). */
  identity: z.record(z.string(), z.unknown()).optional(),
  identityHash: z.string().optional(),
  approvedAt: z.number().optional(),
  approvedBy: z.string().optional(),
  /** Identity hash a person chose to keep stopped. */
  rejectedIdentity: z.string().optional(),
  /** Pinned tool definitions by tool name; absent until the first listing after approval. */
  tools: z.record(z.string(), PinnedToolSchema).optional(),
  /** Definitions the server offers that differ from the pins (held back), by tool name. */
  pending: z.record(z.string(), PendingToolSchema).default({}),
  /** Tool name → definition hash a person rejected. */
  rejectedTools: z.record(z.string(), z.string()).default({}),
});

/**
 * The profile's own launch identity (main/trust/profile-identity.ts: policy, tool surface,
 * aliases, workspace), approved like a server's. Kept beside the server pins, in the same file.
 */
export const ProfileIdentityPinSchema = z.object({
  identity: z.record(z.string(), z.unknown()).optional(),
  identityHash: z.string().optional(),
  approvedAt: z.number().optional(),
  approvedBy: z.string().optional(),
  rejectedIdentity: z.string().optional(),
});

export const ProfilePinsSchema = z.object({
  /**
   * 2 since the profile identity exists. A version-1 file predates it: its approved servers
   * were approved without a profile identity to go with them, and launch-consent.ts pins the
   * profile's current one once (the migration), instead of asking for every existing profile.
   */
  version: z.union([z.literal(1), z.literal(2)]),
  profile: z.string(),
  launch: ProfileIdentityPinSchema.optional(),
  servers: z.record(z.string(), ServerPinSchema).default({}),
});

export type ServerPin = z.infer<typeof ServerPinSchema>;
export type ProfileIdentityPin = z.infer<typeof ProfileIdentityPinSchema>;
export type ProfilePins = z.infer<typeof ProfilePinsSchema>;
export type PinnedTool = z.infer<typeof PinnedToolSchema>;
export type PendingTool = z.infer<typeof PendingToolSchema>;

export const TrustBundleSchema = z.object({ gatehouseTrust: z.literal(1), exportedAt: z.number(), profiles: z.array(ProfilePinsSchema) });
export type TrustBundle = z.infer<typeof TrustBundleSchema>;

/** One trust decision, as the audit store keeps it (main/audit: trust_decisions). */
export interface TrustDecision {
  ts: number;
  profile: string;
  server?: string;
  tool?: string;
  kind: 'launch' | 'tool' | 'profile';
  action: 'approved' | 'kept_stopped' | 'pinned' | 'held' | 'accepted' | 'rejected' | 'removed' | 'forgotten' | 'quarantined' | 'imported';
  by: string;
  oldHash?: string;
  newHash?: string;
  /** What changed: identity fields, a diff summary, or flags. */
  changed?: string;
  flags?: TrustFlag[];
  session?: string;
}

export type TrustRecorder = (d: TrustDecision) => void;

const PROFILE_FILE_RE = /^[a-z0-9][a-z0-9_-]*$/;

export class TrustStore {
  readonly dir: string;

  constructor(
    dataDir: string,
    private readonly recorder?: TrustRecorder,
  ) {
    this.dir = path.join(dataDir, 'trust');
  }

  file(profile: string): string {
    if (!PROFILE_FILE_RE.test(profile)) throw new Error(`not a profile name: '${profile}'`);
    return path.join(this.dir, `${profile}.json`);
  }

  read(profile: string): ProfilePins {
    const file = this.file(profile);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 2, profile, servers: {} };
      throw err;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file}: not valid JSON (${(err as Error).message})`);
    }
    const parsed = ProfilePinsSchema.safeParse(json);
    if (!parsed.success) throw new Error(`${file}: not a Gatehouse pin file (${parsed.error.issues[0]?.message ?? 'invalid'})`);
    return parsed.data;
  }

  server(profile: string, server: string): ServerPin | undefined {
    return this.read(profile).servers[server];
  }

  profiles(): string[] {
    try {
      return fs
        .readdirSync(this.dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -5))
        .filter((p) => PROFILE_FILE_RE.test(p))
        .sort();
    } catch {
      return [];
    }
  }

  /** Applies `change` to the freshly read pins of `profile` and writes them back atomically. */
  update(profile: string, change: (pins: ProfilePins) => void): ProfilePins {
    const pins = this.read(profile);
    change(pins);
    this.write(pins);
    return pins;
  }

  /** `keepVersion`: an imported file keeps the version it was exported with (see ProfilePinsSchema). */
  private write(pins: ProfilePins, keepVersion = false): void {
    // Pins decide what runs: private to the user, like the audit store.
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(pins.profile);
    if (!keepVersion) pins.version = 2;
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(pins, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
  }

  record(d: Omit<TrustDecision, 'ts'> & { ts?: number }): void {
    try {
      this.recorder?.({ ts: Date.now(), ...d });
    } catch (err) {
      process.stderr.write(`gatehouse trust: could not record a decision in the audit store: ${(err as Error).message}\n`);
    }
  }

  approveLaunch(profile: string, server: string, identity: LaunchIdentity, hash: string, by: string, extra: { changed?: string; session?: string } = {}): void {
    let old: string | undefined;
    this.update(profile, (pins) => {
      const prev = pins.servers[server];
      old = prev?.identityHash;
      pins.servers[server] = { ...(prev ?? { pending: {}, rejectedTools: {} }), identity, identityHash: hash, approvedAt: Date.now(), approvedBy: by, rejectedIdentity: undefined };
    });
    this.record({ profile, server, kind: 'launch', action: 'approved', by, oldHash: old, newHash: hash, ...extra });
  }

  /** Approves the profile's own identity (policy, tool surface, aliases, workspace). */
  approveProfile(profile: string, identity: LaunchIdentity, hash: string, by: string, extra: { changed?: string; session?: string } = {}): void {
    let old: string | undefined;
    this.update(profile, (pins) => {
      old = pins.launch?.identityHash;
      pins.launch = { identity, identityHash: hash, approvedAt: Date.now(), approvedBy: by };
    });
    this.record({ profile, kind: 'profile', action: 'approved', by, oldHash: old, newHash: hash, ...extra });
  }

  keepProfileStopped(profile: string, hash: string, by: string, extra: { changed?: string; session?: string } = {}): void {
    let old: string | undefined;
    this.update(profile, (pins) => {
      old = pins.launch?.identityHash;
      pins.launch = { ...(pins.launch ?? {}), rejectedIdentity: hash };
    });
    this.record({ profile, kind: 'profile', action: 'kept_stopped', by, oldHash: old, newHash: hash, ...extra });
  }

  keepStopped(profile: string, server: string, hash: string, by: string, extra: { changed?: string; session?: string } = {}): void {
    let old: string | undefined;
    this.update(profile, (pins) => {
      const prev = pins.servers[server] ?? { pending: {}, rejectedTools: {} };
      old = prev.identityHash;
      pins.servers[server] = { ...prev, rejectedIdentity: hash };
    });
    this.record({ profile, server, kind: 'launch', action: 'kept_stopped', by, oldHash: old, newHash: hash, ...extra });
  }

  /** Pins definitions (first sight of a clean tool, accept-new, or a person's accept) and clears what was pending for them. */
  pinTools(
    profile: string,
    server: string,
    tools: Array<{ name: string; hash: string; definition: ToolDefinition; flags?: TrustFlag[] }>,
    by: string,
    action: 'pinned' | 'accepted',
    session?: string,
  ): void {
    const olds = new Map<string, string | undefined>();
    this.update(profile, (pins) => {
      const pin = (pins.servers[server] ??= { pending: {}, rejectedTools: {} });
      pin.tools ??= {};
      for (const t of tools) {
        olds.set(t.name, pin.tools[t.name]?.hash);
        pin.tools[t.name] = { hash: t.hash, definition: t.definition as unknown as Record<string, unknown>, approvedAt: Date.now(), approvedBy: by };
        delete pin.pending[t.name];
        delete pin.rejectedTools[t.name];
      }
    });
    for (const t of tools) {
      this.record({ profile, server, tool: t.name, kind: 'tool', action, by, oldHash: olds.get(t.name), newHash: t.hash, flags: t.flags?.length ? t.flags : undefined, session });
    }
  }

  /** Marks a server's tool list as seen (an empty `tools` map), so later tools count as new. */
  markToolsSeen(profile: string, server: string): void {
    this.update(profile, (pins) => {
      const pin = (pins.servers[server] ??= { pending: {}, rejectedTools: {} });
      pin.tools ??= {};
    });
  }

  /** Forgets the pin of tools the server no longer offers (a person acknowledged the removal). */
  unpinTools(profile: string, server: string, names: string[], by: string, session?: string): void {
    const olds = new Map<string, string | undefined>();
    this.update(profile, (pins) => {
      const pin = pins.servers[server];
      for (const n of names) {
        olds.set(n, pin?.tools?.[n]?.hash);
        if (pin?.tools) delete pin.tools[n];
      }
    });
    for (const n of names) this.record({ profile, server, tool: n, kind: 'tool', action: 'removed', by, oldHash: olds.get(n), session });
  }

  /** Keeps a held definition; returns false when it was already kept (nothing written). */
  holdTool(profile: string, server: string, name: string, pending: PendingTool, session?: string): boolean {
    const before = this.server(profile, server)?.pending[name];
    if (before?.hash === pending.hash) return false;
    let old: string | undefined;
    this.update(profile, (pins) => {
      const pin = (pins.servers[server] ??= { pending: {}, rejectedTools: {} });
      old = pin.tools?.[name]?.hash;
      pin.pending[name] = pending;
    });
    this.record({ profile, server, tool: name, kind: 'tool', action: 'held', by: 'gatehouse', oldHash: old, newHash: pending.hash, flags: pending.flags.length ? (pending.flags as TrustFlag[]) : undefined, changed: old ? 'definition changed since approved' : 'new tool', session });
    return true;
  }

  rejectTool(profile: string, server: string, name: string, hash: string, by: string, session?: string): void {
    let old: string | undefined;
    this.update(profile, (pins) => {
      const pin = (pins.servers[server] ??= { pending: {}, rejectedTools: {} });
      old = pin.tools?.[name]?.hash;
      pin.rejectedTools[name] = hash;
    });
    this.record({ profile, server, tool: name, kind: 'tool', action: 'rejected', by, oldHash: old, newHash: hash, session });
  }

  /** Drops every pin of a profile (or one server): what it names asks again before it starts. */
  forget(profile: string, by: string, action: 'forgotten' | 'quarantined' = 'forgotten', server?: string): void {
    const file = this.file(profile);
    if (server === undefined) fs.rmSync(file, { force: true });
    else this.update(profile, (pins) => void delete pins.servers[server]);
    this.record({ profile, server, kind: 'profile', action, by });
  }

  exportBundle(profiles?: string[]): TrustBundle {
    const names = profiles ?? this.profiles();
    return { gatehouseTrust: 1, exportedAt: Date.now(), profiles: names.map((p) => this.read(p)) };
  }

  /** Replaces the pins of each profile in the bundle (deliberately: a person ran the import). */
  importBundle(bundle: unknown, by: string): string[] {
    const parsed = TrustBundleSchema.safeParse(bundle);
    if (!parsed.success) throw new Error(`not a Gatehouse trust export: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).slice(0, 3).join('; ')}`);
    for (const pins of parsed.data.profiles) {
      this.file(pins.profile); // validates the name before anything is written
    }
    for (const pins of parsed.data.profiles) {
      this.write(pins, true);
      for (const [server, pin] of Object.entries(pins.servers)) this.record({ profile: pins.profile, server, kind: 'launch', action: 'imported', by, newHash: pin.identityHash });
    }
    return parsed.data.profiles.map((p) => p.profile);
  }

  /** Calls `onChange` when the pin file of `profile` is replaced (by this process or another). */
  watch(profile: string, onChange: () => void): () => void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const name = `${profile}.json`;
    let timer: NodeJS.Timeout | undefined;
    const watcher = fs.watch(this.dir, (_event, file) => {
      if (file !== name) return;
      // A rename shows up as several events: settle on the last one.
      clearTimeout(timer);
      timer = setTimeout(onChange, 30);
    });
    watcher.on('error', () => {});
    watcher.unref();
    return () => {
      clearTimeout(timer);
      watcher.close();
    };
  }
}
