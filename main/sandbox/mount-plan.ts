// The file-system half of a sandbox, decided once for both platforms: which paths are writable,
// which are visible read-only, which are hidden, in the order that makes the most specific rule
// win. bwrap-args.ts turns it into mounts, seatbelt-profile.ts into SBPL rules.
//
// Order: mounts apply in sequence and a later mount covers an earlier one, so rules are sorted by
// depth (shallow first): `write: [~]` then the hidden `~/.ssh` inside it stays hidden, and the
// hidden data directory then a granted `${data}/memory` inside it is visible. At the same path an
// explicit grant beats the default hide list (a profile that grants `~/.ssh` means it), except for
// Gatehouse's data directory, which no grant may expose whole.
//
// Protected paths (the profile file, the profiles folders, approved servers' program files:
// docs/security.md "The files that decide what runs") are the exception to "a grant wins": no
// grant makes them writable. A write grant at or inside one becomes read-only, and one covered
// by a write grant gets its own read-only rule, deeper than the grant, so the depth sort puts it
// after (bwrap: the later --ro-bind covers the --bind; a bound file cannot be unlinked or
// renamed over either, EBUSY). A sandbox kind that can only add rights (Landlock) cannot take
// write away under a writable grant: it must honour `protected` another way (grant the grant's
// other entries instead) or report the rule as not enforced (SandboxedCommand.unenforced).
import { realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { hiddenPaths, runAllowlist } from './hidden-paths';
import type { SandboxSpec } from './types';

export type MountRule =
  | { kind: 'write'; path: string }
  /** `protected`: a path no grant may make writable (seatbelt also denies writes under it). */
  | { kind: 'read'; path: string; protected?: true }
  /** `dir`: an empty read-only folder in its place; `file`: /dev/null in its place. */
  | { kind: 'hide'; path: string; type: 'dir' | 'file' };

export interface MountPlanContext {
  workspace: string;
  dataDir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** For tests: the account's home from the password database (default: os.userInfo()). */
  passwdHome?: string;
  /** Files Gatehouse itself must see inside (the in-sandbox forwarder, an agent's run folder). */
  internalRead?: string[];
  /** Paths no grant may make writable (see the comment at the top); missing ones are skipped. */
  protectedRead?: string[];
  /** For tests: the file system to consult. */
  stat?: (p: string) => Stats | undefined;
  realpath?: (p: string) => string;
}

export class SandboxConfigError extends Error {}

const defaultStat = (p: string): Stats | undefined => statSync(p, { throwIfNoEntry: false });
const defaultRealpath = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

function depth(p: string): number {
  return p.split('/').filter(Boolean).length;
}

export function mountPlan(spec: SandboxSpec, ctx: MountPlanContext): MountRule[] {
  const stat = ctx.stat ?? defaultStat;
  const real = ctx.realpath ?? defaultRealpath;
  const dataDir = real(path.resolve(ctx.dataDir));
  const grants: Array<{ kind: 'write' | 'read'; path: string; protected?: true }> = [];
  const seen = new Set<string>();
  const grant = (kind: 'write' | 'read', raw: string, required: boolean): void => {
    const abs = path.resolve(raw);
    const st = stat(abs);
    if (!st) {
      // A missing grant cannot be mounted; a required one (the workspace) is a real error.
      if (required) throw new SandboxConfigError(`sandbox: ${abs} does not exist`);
      return;
    }
    const p = real(abs);
    if (p === dataDir) {
      throw new SandboxConfigError(
        `sandbox: Gatehouse's data directory ${dataDir} cannot be granted (it holds the audit store, the approvals socket and terminal tokens); grant a folder inside it instead`,
      );
    }
    // One rule per path; write beats read (a read-only bind after the writable one would win).
    if (seen.has(p)) {
      if (kind === 'write') for (const g of grants) if (g.path === p) g.kind = 'write';
      return;
    }
    seen.add(p);
    grants.push({ kind, path: p });
  };
  grant('write', ctx.workspace, true);
  for (const w of spec.write) grant('write', w, false);
  for (const r of spec.read) grant('read', r, false);
  for (const r of ctx.internalRead ?? []) grant('read', r, false);
  for (const r of runAllowlist(spec.network.kind, { stat, realpath: real })) grant('read', r, false);

  const guarded = protectedPaths(ctx.protectedRead ?? [], stat, real);
  const inside = (p: string, dir: string): boolean => p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);
  const protects: MountRule[] = [];
  for (const g of grants) {
    if (g.kind === 'write' && guarded.some((q) => inside(g.path, q))) g.kind = 'read';
    if (guarded.includes(g.path)) g.protected = true;
  }

  const granted = new Set(grants.map((g) => g.path));
  const hides: MountRule[] = [];
  for (const h of hiddenPaths({ home: ctx.home, dataDir, env: ctx.env, passwdHome: ctx.passwdHome })) {
    const st = stat(h);
    if (!st) continue;
    const p = real(h);
    if (granted.has(p) && p !== dataDir) continue;
    if (hides.some((x) => x.path === p)) continue;
    hides.push({ kind: 'hide', path: p, type: st.isDirectory() ? 'dir' : 'file' });
  }
  for (const q of guarded) {
    if (granted.has(q)) continue; // the grant at that path is already read-only
    // The rule that decides q today is the deepest one covering it: only a write grant needs covering.
    const covering = [...hides, ...grants].filter((r) => inside(q, r.path)).sort((a, b) => depth(b.path) - depth(a.path))[0];
    if (covering?.kind === 'write') protects.push({ kind: 'read', path: q, protected: true });
  }
  // Stable sort by depth; at equal depth hides first so a grant beside them is unaffected, and
  // protected paths last so they win over a grant at their depth.
  const all = [...hides, ...grants, ...protects];
  return withoutCoveredHides(
    all
      .map((rule, i) => ({ rule, i }))
      .sort((a, b) => depth(a.rule.path) - depth(b.rule.path) || a.i - b.i)
      .map((x) => x.rule),
  );
}

/**
 * A hide whose nearest enclosing rule is a hidden folder hides nothing more: the path is already
 * absent there. Dropped, or its empty mount point would be created inside that folder and name
 * what the host has (`/run/docker.sock`, `~/.ssh` in a listing of the hidden home). Under a
 * grant it stays (a grant of `~` or `/run` still leaves `~/.ssh` or `/run/docker.sock` hidden).
 */
function withoutCoveredHides(sorted: MountRule[]): MountRule[] {
  return sorted.filter((rule, i) => {
    if (rule.kind !== 'hide') return true;
    let nearest: MountRule | undefined;
    for (const r of sorted.slice(0, i)) if (r.path !== rule.path && rule.path.startsWith(r.path === '/' ? '/' : `${r.path}/`)) nearest = r;
    return !(nearest?.kind === 'hide' && nearest.type === 'dir');
  });
}

function protectedPaths(paths: string[], stat: (p: string) => Stats | undefined, real: (p: string) => string): string[] {
  const out = new Set<string>();
  for (const raw of paths) {
    const abs = path.resolve(raw);
    if (!stat(abs)) continue;
    out.add(real(abs));
  }
  return [...out];
}
