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
import { changedFields, identityHash, identityLines, launchIdentity, templatedIdentity, type IdentityLine, type LaunchIdentity } from './identity';
import type { TrustStore } from './pin-store';

export type LaunchStatus = 'approved' | 'new' | 'changed' | 'kept_stopped';

export interface LaunchReview {
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

const BundledPinsSchema = z.object({ profile: z.string(), servers: z.record(z.string(), z.string()) });

function bundledHashes(profile: ResolvedProfile): Record<string, string> | undefined {
  if (path.dirname(profile.file) !== bundledProfilesDir()) return undefined;
  const file = path.join(path.dirname(profile.file), `${path.basename(profile.file).replace(/\.ya?ml$/, '')}.trust.json`);
  try {
    const parsed = BundledPinsSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success && parsed.data.profile === profile.name ? parsed.data.servers : undefined;
  } catch {
    return undefined;
  }
}

/** The hash a bundled pin file carries for this server (what `workspace-profiles/*.trust.json` holds). */
export function bundledIdentityHash(spec: ServerSpec, profile: ResolvedProfile): string {
  return identityHash(templatedIdentity(launchIdentity(spec, profile), { workspace: profile.workspace, data: profile.dataDir, app: appRoot() }));
}

export function reviewLaunch(profile: ResolvedProfile, spec: ServerSpec, store: TrustStore, bundled = bundledHashes(profile)): LaunchReview {
  const identity = launchIdentity(spec, profile);
  const hash = identityHash(identity);
  const base = { server: spec.id, identity, hash, lines: identityLines(identity), changed: [] as string[] };
  if (spec.kind === 'builtin') return { ...base, status: 'approved', builtin: true };
  let pin = store.server(profile.name, spec.id);
  if (!pin?.identityHash && !pin?.rejectedIdentity) {
    const by = bundled?.[spec.id] === bundledIdentityHash(spec, profile) ? 'bundled with Gatehouse' : testApprover;
    if (by) {
      store.approveLaunch(profile.name, spec.id, identity, hash, by, { changed: 'new' });
      pin = store.server(profile.name, spec.id);
    }
  }
  if (pin?.identityHash === hash) return { ...base, status: 'approved', approvedBy: pin.approvedBy, approvedAt: pin.approvedAt };
  const previous = pin?.identity as LaunchIdentity | undefined;
  const review: LaunchReview = { ...base, status: pin?.rejectedIdentity === hash ? 'kept_stopped' : previous ? 'changed' : 'new', changed: changedFields(previous, identity) };
  if (previous) {
    review.previous = previous;
    review.previousLines = identityLines(previous);
  }
  return review;
}

/** Every server of the profile that would start (not disabled), with whether it may. */
export function reviewProfileLaunch(profile: ResolvedProfile, store: TrustStore): LaunchReview[] {
  const bundled = bundledHashes(profile);
  return profile.servers.filter((s) => !s.disabled).map((s) => reviewLaunch(profile, s, store, bundled));
}

/** The one line a command prints when it cannot ask (no terminal, or `gateway` without --trust-prompt). */
export function refusalLine(profileRef: string, held: LaunchReview[]): string {
  const what = held.map((r) => `${r.server} (${r.status === 'kept_stopped' ? 'kept stopped' : `${r.status} launch command`})`).join(', ');
  const one = held.length === 1 ? ` --server ${held[0]!.server}` : '';
  return `gatehouse: not started until approved: ${what}; review with \`gatehouse trust diff --profile ${profileRef}\`, approve with \`gatehouse trust accept --profile ${profileRef}${one}\``;
}
