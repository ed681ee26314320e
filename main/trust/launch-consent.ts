// Launch consent (docs/trust.md): each server's launch identity must match the one a person
// approved for this profile before the server starts. Evaluated by the trust guard when a
// server is about to start and by `gatehouse launch|gateway|trust` before anything starts.
//
// Two ways a server is approved without a person at this machine clicking:
// - the profile ships with Gatehouse (workspace-profiles/) and a pin file beside it
//   (`<name>.trust.json`) carries the hash of the server's identity with this machine's paths
//   written as ${workspace}/${data}/${app} (templatedIdentity): the installer approved that
//   exact declaration. Edit the bundled profile and the edited server asks like any other.
// - the test seam below, which only code inside this process can set (no environment
//   variable, file or flag reaches it).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ResolvedProfile, ServerSpec } from '../profiles/types';
import { appRoot, bundledProfilesDir } from '../paths';
import { changedFields, identityHash, identityLines, launchIdentity, templatedIdentity, withoutProgram, type IdentityLine, type LaunchIdentity, type LineContext } from './identity';
import type { TrustStore } from './pin-store';
import type { SandboxKind } from '../sandbox/types';
import { PROFILE_REVIEW, profileIdentity } from './profile-identity';
import { programChange, programIdentity, type ProgramIdentity } from './program-identity';

export type LaunchStatus = 'approved' | 'new' | 'changed' | 'kept_stopped';

export interface LaunchReview {
  /** A server id, or PROFILE_REVIEW for the profile's own identity (profile-identity.ts). */
  server: string;
  status: LaunchStatus;
  identity: LaunchIdentity;
  hash: string;
  lines: IdentityLine[];
  previous?: LaunchIdentity;
  previousLines?: IdentityLine[];
  changed: string[];
  approvedBy?: string;
  approvedAt?: number;
  /** Gatehouse's own built-in server: part of the installed program, not asked for. */
  builtin?: boolean;
}

// ---- test seam ---------------------------------------------------------------------------------
let testApprover: string | undefined;
/**
 * FOR TESTS ONLY (tests/support/trust-setup.ts, a vitest setup file): a server of a profile
 * that has NO pin at all (never approved, never kept stopped) is approved through the real
 * store, recorded with `by` as who approved. A changed identity still asks. Nothing outside
 * this process's own code can set it: it is not read from the environment or from any file.
 */
export function setTestApprover(by: string | undefined): void {
  testApprover = by;
}

const BundledPinsSchema = z.object({ profile: z.string(), launch: z.string().optional(), servers: z.record(z.string(), z.string()) });
type BundledPins = z.infer<typeof BundledPinsSchema>;

/** What every review needs to compute the identity the same way everywhere (docs/trust.md "One identity"). */
export interface ReviewContext {
  /** The PATH a run would search (program-identity.ts launchSearchPath). */
  searchPath: string;
  bundled?: BundledPins;
  /** The sandbox kind this machine gives a strict server, for the card's words only (identity.ts LineContext). */
  sandboxKind?: () => SandboxKind | undefined;
}

function bundledPins(profile: ResolvedProfile): BundledPins | undefined {
  if (path.dirname(profile.file) !== bundledProfilesDir()) return undefined;
  const file = path.join(path.dirname(profile.file), `${path.basename(profile.file).replace(/\.ya?ml$/, '')}.trust.json`);
  try {
    const parsed = BundledPinsSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success && parsed.data.profile === profile.name ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const templated = (identity: LaunchIdentity, profile: ResolvedProfile) => templatedIdentity(identity, { workspace: profile.workspace, data: profile.dataDir, app: appRoot() });

/**
 * The hash a bundled pin file carries for this server (what `workspace-profiles/*.trust.json`
 * holds): without the program, which depends on this machine's node; that is pinned when the
 * bundled approval is written.
 */
export function bundledIdentityHash(spec: ServerSpec, profile: ResolvedProfile): string {
  return identityHash(templated(launchIdentity(spec, profile), profile));
}

/** The hash a bundled pin file carries for the profile's own identity (`launch`). */
export function bundledProfileHash(profile: ResolvedProfile): string {
  return identityHash(templated(profileIdentity(profile), profile));
}

function reviewOf(
  server: string,
  identity: LaunchIdentity,
  pin: { identity?: Record<string, unknown>; identityHash?: string; rejectedIdentity?: string; approvedBy?: string; approvedAt?: number } | undefined,
  lineCtx: LineContext = {},
): LaunchReview {
  const hash = identityHash(identity);
  const base = { server, identity, hash, lines: identityLines(identity, lineCtx), changed: [] as string[] };
  if (pin?.identityHash === hash) return { ...base, status: 'approved', approvedBy: pin.approvedBy, approvedAt: pin.approvedAt };
  const previous = pin?.identity as LaunchIdentity | undefined;
  const review: LaunchReview = { ...base, status: pin?.rejectedIdentity === hash ? 'kept_stopped' : previous ? 'changed' : 'new', changed: changedFields(previous, identity) };
  if (previous) {
    review.previous = previous;
    review.previousLines = identityLines(previous, lineCtx);
  }
  return review;
}

export function reviewLaunch(profile: ResolvedProfile, spec: ServerSpec, store: TrustStore, ctx: ReviewContext): LaunchReview {
  const bundled = 'bundled' in ctx ? ctx.bundled : bundledPins(profile);
  const program = spec.kind === 'stdio' ? programIdentity(spec, ctx.searchPath) : undefined;
  const identity = launchIdentity(spec, profile, program);
  const hash = identityHash(identity);
  if (spec.kind === 'builtin') return { ...reviewOf(spec.id, identity, undefined), status: 'approved', builtin: true };
  let pin = store.server(profile.name, spec.id);
  if (!pin?.identityHash && !pin?.rejectedIdentity) {
    const by = bundled?.servers[spec.id] === bundledIdentityHash(spec, profile) ? 'bundled with Gatehouse' : testApprover;
    if (by) {
      store.approveLaunch(profile.name, spec.id, identity, hash, by, { changed: 'new' });
      pin = store.server(profile.name, spec.id);
    }
  }
  // A pin made before program pinning (no `program` in it) whose command line still matches:
  // the person approved this command, pin what it runs now, once, instead of asking everyone
  // again after the upgrade. From then on a changed program asks.
  if (program && pin?.identity && pin.identityHash !== hash && !('program' in pin.identity) && pin.identityHash === identityHash(withoutProgram(identity))) {
    store.approveLaunch(profile.name, spec.id, identity, hash, `${pin.approvedBy ?? 'unknown'} (program pinned at its first launch since program pinning)`, { changed: 'program' });
    pin = store.server(profile.name, spec.id);
  }
  // Asked only for a server that waits for a person (the probe forks once, then is cached).
  const lineCtx = (): LineContext => {
    const kind = spec.kind === 'stdio' && spec.sandbox.mode === 'strict' ? ctx.sandboxKind?.() : undefined;
    return kind ? { sandboxKind: kind } : {};
  };
  return pin?.identityHash === hash ? reviewOf(spec.id, identity, pin) : reviewOf(spec.id, identity, pin, lineCtx());
}

/** The profile's own identity (policy, tool surface, aliases, workspace): approved, or asking. */
export function reviewProfile(profile: ResolvedProfile, store: TrustStore, ctx: Partial<ReviewContext> = {}): LaunchReview {
  const bundled = 'bundled' in ctx ? ctx.bundled : bundledPins(profile);
  const identity = profileIdentity(profile);
  const hash = identityHash(identity);
  const pins = store.read(profile.name);
  if (!pins.launch?.identityHash && !pins.launch?.rejectedIdentity) {
    // A version-1 pin file predates the profile identity: what its servers were approved with
    // is what the profile says now (pin-store.ts ProfilePinsSchema), pinned once.
    const migrated = pins.version === 1 && Object.values(pins.servers).some((s) => s.identityHash);
    const by = migrated ? 'gatehouse (pinned at its first launch since profile pinning)' : bundled?.launch === bundledProfileHash(profile) ? 'bundled with Gatehouse' : testApprover;
    if (by) {
      store.approveProfile(profile.name, identity, hash, by, { changed: 'new' });
      return reviewOf(PROFILE_REVIEW, identity, store.read(profile.name).launch);
    }
  }
  return reviewOf(PROFILE_REVIEW, identity, pins.launch);
}

/** The profile's own review first, then every server of the profile that would start (not disabled). */
export function reviewProfileLaunch(profile: ResolvedProfile, store: TrustStore, ctx: Omit<ReviewContext, 'bundled'>): LaunchReview[] {
  const full: ReviewContext = { ...ctx, bundled: bundledPins(profile) };
  return [reviewProfile(profile, store, full), ...profile.servers.filter((s) => !s.disabled).map((s) => reviewLaunch(profile, s, store, full))];
}

/**
 * Whether a review keeps something from starting. The profile's own identity holds only once it
 * was approved and then changed (or kept stopped): a profile never approved has only new
 * servers, which ask anyway, and approving one of them pins the profile as it is (approveReview).
 */
export function holds(review: LaunchReview): boolean {
  return review.status !== 'approved' && !(review.server === PROFILE_REVIEW && review.status === 'new');
}

/**
 * A person approved what `review` showed (a server's launch identity, or the profile's own).
 * The first server approved in a profile whose own identity was never approved pins that too:
 * the person chose to launch this profile as it stands (`trust diff` lists its policy).
 */
export function approveReview(store: TrustStore, profile: ResolvedProfile, review: LaunchReview, by: string, session?: string): void {
  const changed = review.status === 'changed' ? review.changed.join(', ') : review.status;
  if (review.server === PROFILE_REVIEW) return store.approveProfile(profile.name, review.identity, review.hash, by, { changed, session });
  store.approveLaunch(profile.name, review.server, review.identity, review.hash, by, { changed, session });
  const own = store.read(profile.name).launch;
  if (!own?.identityHash && !own?.rejectedIdentity) {
    const identity = profileIdentity(profile);
    store.approveProfile(profile.name, identity, identityHash(identity), by, { changed: "new (pinned with the profile's first approved server)", session });
  }
}

export function keepStoppedReview(store: TrustStore, profile: ResolvedProfile, review: LaunchReview, by: string, session?: string): void {
  if (review.server === PROFILE_REVIEW) store.keepProfileStopped(profile.name, review.hash, by, { session });
  else store.keepStopped(profile.name, review.server, review.hash, by, { session });
}

/** What changed, for a log line: `program changed (entry /ws/b.js sha256:… → sha256:…)`, `launch command changed (cwd)`. */
export function changeSummary(r: LaunchReview): string {
  const what = r.server === PROFILE_REVIEW ? "the profile's policy" : 'launch command';
  if (r.status === 'new') return r.server === PROFILE_REVIEW ? "the profile's policy is new" : 'new launch command';
  if (r.status === 'kept_stopped') return 'kept stopped';
  const rest = r.changed.filter((f) => f !== 'program');
  const parts: string[] = [];
  if (r.changed.includes('program')) parts.push(`program changed (${programChange(r.previous?.program as ProgramIdentity | undefined, r.identity.program as ProgramIdentity | undefined)})`);
  if (rest.length || parts.length === 0) parts.push(`${what} changed (${rest.join(', ')})`);
  return parts.join('; ');
}

/** The one line a command prints when it cannot ask (no terminal, or `gateway` without --trust-prompt). */
export function refusalLine(profileRef: string, held: LaunchReview[]): string {
  const what = held.map((r) => `${r.server} (${changeSummary(r)})`).join(', ');
  const one = held.length === 1 && held[0]!.server !== PROFILE_REVIEW ? ` --server ${held[0]!.server}` : '';
  return `gatehouse: not started until approved: ${what}; review with \`gatehouse trust diff --profile ${profileRef}\`, approve with \`gatehouse trust accept --profile ${profileRef}${one}\``;
}
