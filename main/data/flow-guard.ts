// The trifecta guard (docs/data.md, "The trifecta guard"). A session that has received private
// data and has also taken in untrusted content (a web page that may carry instructions) must
// not send data out on its own: its next call to an exfil-capable tool needs a person, or is
// denied, per `policy.flow`. Labels stick to the agent session for its life; a tool's marks come
// from defaults plus the profile's `policy.marks` globs:
//   private    the workspace read tools (fs.read, process.exec's output), profile marks;
//   untrusted  net.http_request, tools whose server says `openWorldHint: true`, tools of servers
//              that reach the network (a sandbox `network: {allow}` grant, or a remote URL);
//   exfil      net.http_request, tools of network-reaching servers, profile marks.
// The built-in tools server is judged by its tools, not by its network grant (it has one as
// soon as http_request may reach a host, and fs.read must not become "from the web" for it).
import type { FlowMarks, FlowPolicy, ServerSpec } from '../profiles/types';
import type { ToolAnnotations } from '../policy/types';
import { compileGlobs } from '../policy/glob';

export type FlowLabel = 'private' | 'untrusted';

export interface FlowTool {
  tool: string;
  server: string;
  annotations?: ToolAnnotations;
}

/** A tool's marks, each with why (shown in the Servers view and the capabilities report). */
export interface ToolMarks {
  private?: string;
  untrusted?: string;
  exfil?: string;
}

export const DEFAULT_PRIVATE = ['fs.read', 'process.exec'];
export const DEFAULT_UNTRUSTED = ['net.http_request'];
export const DEFAULT_EXFIL = ['net.http_request'];

export interface FlowGate {
  decision: 'APPROVAL' | 'DENY';
  reason: string;
  rule: string;
  /**
   * Always set: the gate needs a person each time. A session grant made for the tool earlier
   * (or on this very card) must not let a later exfil call through unasked.
   */
  perCall: true;
}

export class FlowGuard {
  readonly mode: FlowPolicy;
  private readonly privateGlobs;
  private readonly untrustedGlobs;
  private readonly exfilGlobs;
  private readonly networked = new Map<string, string>();
  /** agent session → label → the first tool that gave it. */
  private readonly labels = new Map<string, Map<FlowLabel, string>>();

  constructor(mode: FlowPolicy | undefined, marks: FlowMarks | undefined, servers: readonly ServerSpec[]) {
    this.mode = mode ?? 'approve';
    this.privateGlobs = compileGlobs([...DEFAULT_PRIVATE, ...(marks?.private ?? [])]);
    this.untrustedGlobs = compileGlobs([...DEFAULT_UNTRUSTED, ...(marks?.untrusted ?? [])]);
    this.exfilGlobs = compileGlobs([...DEFAULT_EXFIL, ...(marks?.exfil ?? [])]);
    for (const s of servers) {
      if (s.kind === 'builtin') continue;
      if (s.kind === 'http') this.networked.set(s.id, `server ${s.id} is remote (${new URL(s.url).host})`);
      else if (s.sandbox.network.kind === 'allow') this.networked.set(s.id, `server ${s.id} has a network grant`);
    }
  }

  marks(t: FlowTool): ToolMarks {
    const out: ToolMarks = {};
    const priv = this.privateGlobs.first(t.tool);
    if (priv) out.private = DEFAULT_PRIVATE.includes(priv) ? 'a workspace read tool' : `marked private (${priv})`;
    const net = this.networked.get(t.server);
    const untrusted = this.untrustedGlobs.first(t.tool);
    if (untrusted) out.untrusted = DEFAULT_UNTRUSTED.includes(untrusted) ? 'content from the web' : `marked untrusted (${untrusted})`;
    else if (t.annotations?.openWorldHint === true) out.untrusted = 'the server says openWorldHint: true';
    else if (net) out.untrusted = net;
    const exfil = this.exfilGlobs.first(t.tool);
    if (exfil) out.exfil = DEFAULT_EXFIL.includes(exfil) ? 'sends requests to the network' : `marked exfil (${exfil})`;
    else if (net) out.exfil = net;
    return out;
  }

  /** The labels a session holds now, with the tool that gave each. */
  sessionLabels(agentSession: string): Partial<Record<FlowLabel, string>> {
    return Object.fromEntries(this.labels.get(agentSession) ?? []);
  }

  /** A result of `t` reached the session: it takes the tool's labels. */
  received(agentSession: string, t: FlowTool): void {
    const m = this.marks(t);
    let held = this.labels.get(agentSession);
    for (const label of ['private', 'untrusted'] as const) {
      if (!m[label]) continue;
      held ??= new Map();
      if (!held.has(label)) held.set(label, t.tool);
    }
    if (held) this.labels.set(agentSession, held);
  }

  /** Whether this call is the third leg of the trifecta, and what `policy.flow` makes of it. */
  check(agentSession: string, t: FlowTool): FlowGate | undefined {
    if (this.mode === 'off') return undefined;
    const held = this.labels.get(agentSession);
    const priv = held?.get('private');
    const untrusted = held?.get('untrusted');
    if (!priv || !untrusted) return undefined;
    const exfil = this.marks(t).exfil;
    if (!exfil) return undefined;
    const reason =
      `this session read private files (${priv}) and content from the web or another untrusted source (${untrusted}); ` +
      `${t.tool} can send data out (${exfil})`;
    return { decision: this.mode === 'deny' ? 'DENY' : 'APPROVAL', reason, rule: 'policy.flow', perCall: true };
  }
}
