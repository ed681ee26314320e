// The policy engine: a resolved profile policy compiled once, then asked about every call.
//
// Rule evaluation, in order:
//  1. `gatehouse.capabilities` is always ALLOW (an agent must always be able to ask what it may do).
//  2. Rules are tried in the order the profile lists them; the FIRST rule that matches decides.
//     A rule matches when all of these hold:
//       - any of its `match` globs matches the canonical name (glob semantics: ./glob.ts);
//       - `servers`, when given, includes the call's server;
//       - `agents`, when given, includes the calling agent's name (a call with no name, and the
//         capabilities outlook, which knows no agent, never match such a rule);
//       - every `annotations` condition equals the server's hint exactly. A missing hint never
//         satisfies a condition, not even `{destructiveHint: false}`: hints come from the server
//         and only count where a rule names them;
//       - every `args` constraint holds (a missing argument never satisfies one):
//           inside_workspace: true   the argument (a string, or a non-empty array of strings) is a
//                                    path inside the workspace (./workspace-path.ts);
//           inside_workspace: false  the argument is not (some path escapes, or is not a path at all),
//                                    so a rule can deny what leaves the workspace;
//           pattern                  a regular expression that must match the whole string form
//                                    (strings as they are; anything else as canonical JSON). The `s`
//                                    flag is on so `.` also crosses newlines;
//           equals                   canonical-JSON equality with the given value.
//  3. No rule matched: `policy.default`.
// `resources/read` and `prompts/get` are decided the same way by the rules written for them
// (`resource:` URI globs, `prompt:` name globs, with `servers`/`agents`, and `args` on prompt
// rules), then `policy.resources` / `policy.prompts` (allow unless the profile says otherwise).
// A tool rule never decides a read and a resource rule never decides a call. URIs are matched
// in one canonical form (uriForPolicy) so `..` segments and %-escapes cannot walk around a glob.
// Any exception while deciding (a bad regex, a hostile `toJSON`, a broken decision value) is a
// DENY whose reason starts with "policy error:": the engine fails closed.
import type { Decision, PolicyRule, PolicySpec } from '../profiles/types';
import { oneLine } from '../base/one-line';
import { compileGlobs } from './glob';
import { canonicalJson } from './fingerprint';
import { checkInsideWorkspace } from './workspace-path';
import type { PolicyCall, PolicyDecision, PolicyOutlook, ToolAnnotations, Verdict } from './types';

export const CAPABILITIES_TOOL = 'gatehouse.capabilities';

/** Longest policy reason (one line, shown after `DENY: ` and in the capabilities report). */
export const REASON_MAX = 200;

export interface Policy {
  readonly spec: PolicySpec;
  /** Absolute workspace root the `inside_workspace` constraints are judged against. */
  readonly workspace: string;
  /** Problems found while compiling (bad regexes); each such rule denies any call that reaches it. */
  readonly problems: readonly string[];
  decide(call: PolicyCall): PolicyDecision;
  /** The decision for a server's `sampling/createMessage` request (`policy.sampling`). */
  decideSampling(server: string): PolicyDecision;
  /** What the policy says about a tool before its arguments are known (capabilities report). */
  outlook(tool: { tool: string; server: string; annotations?: ToolAnnotations }): PolicyOutlook;
  /** The decision for a `resources/read` of `uri` (resource rules, then `policy.resources`). */
  decideResource(req: PolicyResourceRead): PolicyDecision;
  /** The decision for a `prompts/get` (prompt rules, then `policy.prompts`). */
  decidePrompt(req: PolicyPromptGet): PolicyDecision;
}

export interface PolicyResourceRead {
  uri: string;
  server: string;
  agent?: string;
}

export interface PolicyPromptGet {
  /** The prompt's own name, as its server lists it. */
  name: string;
  server: string;
  agent?: string;
  /** The prompt's `arguments`, as received. */
  args: unknown;
}

/**
 * The form a URI is matched in: WHATWG-parsed (dot segments resolved, scheme lower-cased),
 * then %-escapes decoded, so `file:///pub/../secret/k` and `file:///%73ecret/k` meet the glob
 * for `file:///secret/**`. A URI that does not parse is matched as it was given.
 */
export function uriForPolicy(uri: string): string {
  let href = uri;
  try {
    href = new URL(uri).href;
  } catch {
    return uri;
  }
  try {
    return decodeURIComponent(href);
  } catch {
    return href;
  }
}

type ArgConstraint = NonNullable<PolicyRule['args']>[string];

type RuleSubject = 'tool' | 'resource' | 'prompt';

interface CompiledRule {
  path: string;
  subject: RuleSubject;
  rule: PolicyRule;
  globs: ReturnType<typeof compileGlobs>;
  patterns: Map<string, () => RegExp>;
}

export function toVerdict(decision: Decision): Verdict {
  switch (decision) {
    case 'allow':
      return 'ALLOW';
    case 'approve':
      return 'APPROVAL';
    case 'deny':
      return 'DENY';
    default:
      throw new Error(`unknown decision "${String(decision)}" (expected allow, approve or deny)`);
  }
}

export function compilePolicy(spec: PolicySpec, ctx: { workspace: string }): Policy {
  const problems: string[] = [];
  const rules: CompiledRule[] = spec.rules.map((rule, i) => {
    const path = `policy.rules[${i}]`;
    const patterns = new Map<string, () => RegExp>();
    for (const [arg, c] of Object.entries(rule.args ?? {})) {
      if (typeof c?.pattern !== 'string') continue;
      const where = `${path}.args.${arg}.pattern`;
      const get = lazyRegExp(c.pattern, where);
      patterns.set(arg, get);
      try {
        get();
      } catch (err) {
        problems.push(errorText(err));
      }
    }
    // The on-disk schema accepts one glob or a list; take either, so the engine never depends on
    // the resolver having normalised it.
    const subject: RuleSubject = rule.resource !== undefined ? 'resource' : rule.prompt !== undefined ? 'prompt' : 'tool';
    const match: unknown = subject === 'resource' ? rule.resource : subject === 'prompt' ? rule.prompt : rule.match;
    const globs = typeof match === 'string' ? [match] : Array.isArray(match) ? match.filter((g): g is string => typeof g === 'string') : [];
    return { path, subject, rule, globs: compileGlobs(globs, subject === 'resource' ? '/' : '.'), patterns };
  });
  const workspace = ctx.workspace;

  function argHolds(cr: CompiledRule, name: string, c: ArgConstraint, args: unknown): boolean {
    if (args === null || typeof args !== 'object' || Array.isArray(args) || !Object.hasOwn(args, name)) return false;
    const value = (args as Record<string, unknown>)[name];
    if (value === undefined) return false;
    if (c.inside_workspace !== undefined) {
      const inside = allInside(value, workspace);
      if (inside !== c.inside_workspace) return false;
    }
    if (c.pattern !== undefined) {
      const re = cr.patterns.get(name);
      if (!re) throw new Error(`${cr.path}.args.${name}.pattern: expected a string`);
      if (!re().test(typeof value === 'string' ? value : canonicalJson(value))) return false;
    }
    if (c.equals !== undefined && canonicalJson(value) !== canonicalJson(c.equals)) return false;
    return true;
  }

  /** Name, servers and annotations: everything a rule checks except the arguments. */
  function staticMatch(cr: CompiledRule, tool: string, server: string, annotations: ToolAnnotations | undefined, agent?: string): boolean {
    if (cr.subject !== 'tool' || !cr.globs.test(tool)) return false;
    if (cr.rule.servers && !cr.rule.servers.includes(server)) return false;
    if (cr.rule.agents && (agent === undefined || !cr.rule.agents.includes(agent))) return false;
    for (const [hint, want] of Object.entries(cr.rule.annotations ?? {})) {
      if (want === undefined) continue; // an optional condition left out, not "must be absent"
      if (!annotations || !Object.hasOwn(annotations, hint) || annotations[hint] !== want) return false;
    }
    return true;
  }

  function ruleDecision(cr: CompiledRule, tool: string): PolicyDecision {
    const decision = toVerdict(cr.rule.decision);
    const reason = cr.rule.reason ?? `${verdictWords(decision)} by ${cr.path} (matched "${cr.globs.first(tool) ?? cr.globs.glob}")`;
    return { decision, reason: oneLine(reason, REASON_MAX), rule: cr.path };
  }

  function defaultDecision(): PolicyDecision {
    const decision = toVerdict(spec.default);
    return { decision, reason: `no rule matched; ${verdictWords(decision)} by the policy default`, rule: 'policy.default' };
  }

  function decide(call: PolicyCall): PolicyDecision {
    let at: string | undefined;
    // A shadow rule that holds is noted, not obeyed: the rules after it decide.
    let shadow: PolicyDecision['shadow'];
    const withShadow = (d: PolicyDecision): PolicyDecision => (shadow ? { ...d, shadow } : d);
    try {
      if (call.tool === CAPABILITIES_TOOL) return { decision: 'ALLOW', reason: 'the capabilities tool is always allowed', rule: 'builtin' };
      for (const cr of rules) {
        at = cr.path;
        if (!staticMatch(cr, call.tool, call.server, call.annotations, call.agent)) continue;
        // Every pattern of a rule that applies must compile, even one a failing constraint
        // before it would skip: a broken rule denies rather than quietly never matching.
        for (const re of cr.patterns.values()) re();
        let holds = true;
        for (const [name, c] of Object.entries(cr.rule.args ?? {})) {
          if (!argHolds(cr, name, c, call.args)) {
            holds = false;
            break;
          }
        }
        if (holds && cr.rule.shadow) shadow ??= { decision: toVerdict(cr.rule.decision), rule: cr.path };
        else if (holds) return withShadow(ruleDecision(cr, call.tool));
      }
      at = 'policy.default';
      return withShadow(defaultDecision());
    } catch (err) {
      return { decision: 'DENY', reason: oneLine(`policy error: ${errorText(err)}`, REASON_MAX), rule: at };
    }
  }

  /** First rule of `subject` whose name globs, servers, agents (and prompt args) hold; else `policy.<kind>`. */
  function decideOther(subject: 'resource' | 'prompt', names: readonly string[], server: string, agent: string | undefined, args: unknown): PolicyDecision {
    const key = subject === 'resource' ? 'resources' : 'prompts';
    let at: string | undefined;
    let shadow: PolicyDecision['shadow'];
    const withShadow = (d: PolicyDecision): PolicyDecision => (shadow ? { ...d, shadow } : d);
    try {
      for (const cr of rules) {
        if (cr.subject !== subject) continue;
        at = cr.path;
        const name = names.find((n) => cr.globs.test(n));
        if (name === undefined) continue;
        if (cr.rule.servers && !cr.rule.servers.includes(server)) continue;
        if (cr.rule.agents && (agent === undefined || !cr.rule.agents.includes(agent))) continue;
        for (const re of cr.patterns.values()) re();
        const holds = Object.entries(cr.rule.args ?? {}).every(([n, c]) => argHolds(cr, n, c, args));
        if (!holds) continue;
        if (cr.rule.shadow) {
          shadow ??= { decision: toVerdict(cr.rule.decision), rule: cr.path };
          continue;
        }
        return withShadow(ruleDecision(cr, name));
      }
      at = `policy.${key}`;
      const decision = toVerdict(spec[key] ?? 'allow');
      return withShadow({ decision, reason: `no ${subject} rule matched; ${verdictWords(decision)} by policy.${key}`, rule: `policy.${key}` });
    } catch (err) {
      return { decision: 'DENY', reason: oneLine(`policy error: ${errorText(err)}`, REASON_MAX), rule: at };
    }
  }

  function decideResource(req: PolicyResourceRead): PolicyDecision {
    return decideOther('resource', [uriForPolicy(req.uri)], req.server, req.agent, undefined);
  }

  function decidePrompt(req: PolicyPromptGet): PolicyDecision {
    return decideOther('prompt', [req.name, `${req.server}.${req.name}`], req.server, req.agent, req.args);
  }

  function decideSampling(server: string): PolicyDecision {
    try {
      const decision = toVerdict(spec.sampling);
      return { decision, reason: oneLine(`sampling requests from ${server} are ${verdictWords(decision)} by policy.sampling`, REASON_MAX), rule: 'policy.sampling' };
    } catch (err) {
      return { decision: 'DENY', reason: oneLine(`policy error: ${errorText(err)}`, REASON_MAX), rule: 'policy.sampling' };
    }
  }

  function outlook(t: { tool: string; server: string; annotations?: ToolAnnotations }): PolicyOutlook {
    try {
      if (t.tool === CAPABILITIES_TOOL) {
        return { decision: 'ALLOW', reachable: ['ALLOW'], reason: 'the capabilities tool is always allowed', rule: 'builtin', constraints: [] };
      }
      const branches: Array<{ when: string; d: PolicyDecision }> = [];
      let terminal: PolicyDecision | undefined;
      for (const cr of rules) {
        if (cr.rule.shadow || !staticMatch(cr, t.tool, t.server, t.annotations)) continue;
        const args = Object.entries(cr.rule.args ?? {});
        // A rule whose pattern cannot compile denies every call that reaches it (see decide()).
        for (const re of cr.patterns.values()) re();
        if (args.length === 0) {
          terminal = ruleDecision(cr, t.tool);
          break;
        }
        branches.push({ when: args.map(([name, c]) => describeConstraint(name, c)).join(' and '), d: ruleDecision(cr, t.tool) });
      }
      terminal ??= defaultDecision();
      const reachable = [...new Set([...branches.map((b) => b.d.decision), terminal.decision])].sort((a, b) => RANK[b] - RANK[a]);
      const decision = reachable[0]!;
      if (reachable.length === 1) return { decision, reachable, reason: terminal.reason, rule: terminal.rule, constraints: [] };
      const lines = branches.map((b) => `${STATUS_WORDS[b.d.decision]} when ${b.when} (${b.d.rule})`);
      const otherwise = `otherwise ${STATUS_WORDS[terminal.decision]} (${terminal.rule})`;
      const best = branches.find((b) => b.d.decision === decision);
      return {
        decision,
        reachable,
        reason: oneLine(`depends on the arguments: ${best ? `${STATUS_WORDS[decision]} when ${best.when}` : `${STATUS_WORDS[decision]} unless a condition applies`}`, REASON_MAX),
        rule: best?.d.rule ?? terminal.rule,
        constraints: boundConstraints(lines, otherwise),
      };
    } catch (err) {
      return { decision: 'DENY', reachable: ['DENY'], reason: oneLine(`policy error: ${errorText(err)}`, REASON_MAX), constraints: [] };
    }
  }

  return { spec, workspace, problems, decide, decideSampling, outlook, decideResource, decidePrompt };
}

const RANK: Record<Verdict, number> = { DENY: 0, APPROVAL: 1, ALLOW: 2 };
const STATUS_WORDS: Record<Verdict, string> = { ALLOW: 'callable', APPROVAL: 'needs approval', DENY: 'denied' };

export const MAX_CONSTRAINTS = 5;
export const MAX_CONSTRAINT_CHARS = 160;

/** At most MAX_CONSTRAINTS lines of at most MAX_CONSTRAINT_CHARS; the `otherwise` line always survives. */
function boundConstraints(lines: string[], otherwise: string): string[] {
  const room = MAX_CONSTRAINTS - 1;
  const kept = lines.length <= room ? lines : [...lines.slice(0, room - 1), `… and ${lines.length - (room - 1)} more conditions`];
  return [...kept, otherwise].map((l) => truncate(l, MAX_CONSTRAINT_CHARS));
}

function describeConstraint(name: string, c: ArgConstraint): string {
  const parts: string[] = [];
  if (c.inside_workspace === true) parts.push(`"${name}" stays inside the workspace`);
  if (c.inside_workspace === false) parts.push(`"${name}" points outside the workspace`);
  if (c.pattern !== undefined) parts.push(`"${name}" matches /${truncate(c.pattern, 40)}/`);
  if (c.equals !== undefined) parts.push(`"${name}" equals ${truncate(canonicalJson(c.equals), 40)}`);
  return parts.length ? parts.join(' and ') : `"${name}" is given`;
}

function allInside(value: unknown, workspace: string): boolean {
  const paths = typeof value === 'string' ? [value] : Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
  if (!paths) return false; // not a path at all: never "inside", so `inside_workspace: false` holds
  return paths.every((p) => checkInsideWorkspace(p, workspace).inside);
}

function lazyRegExp(pattern: string, where: string): () => RegExp {
  let re: RegExp | undefined;
  let failure: Error | undefined;
  return () => {
    if (re) return re;
    if (failure) throw failure;
    try {
      re = new RegExp(`^(?:${pattern})$`, 's');
      return re;
    } catch (err) {
      failure = new Error(`${where}: invalid regular expression /${pattern}/: ${errorText(err)}`);
      throw failure;
    }
  };
}

function verdictWords(v: Verdict): string {
  return v === 'ALLOW' ? 'allowed' : v === 'APPROVAL' ? 'approval required' : 'denied';
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

