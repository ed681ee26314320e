// HAR 1.2 export and copy-as-curl of a launch's HTTP traffic (docs/ui-layout.md "HAR and curl").
//
// The gateway records JSON-RPC messages, not HTTP bytes: each entry is rebuilt from an agent's
// request on Streamable HTTP (`agent_to_gateway`) and the gateway's answer to it (same agent
// session, same JSON-RPC id), with the headers such a request carries by the transport rules:
// `Mcp-Session-Id` (old era, after initialize), `MCP-Protocol-Version`, `Mcp-Method`/`Mcp-Name`
// (2026-07-28), and `Authorization: Bearer $GATEHOUSE_TOKEN`: a placeholder, never the token,
// so a HAR or a curl line can be shared. Bodies were redacted when they were tapped and pass
// the profile's redactor once more here (a live launch).
import { isObject } from '../base/is-object';
import type { AuditStore } from '../audit/store';
import type { Launch } from '../host';
import type { TrafficTap } from '../protocol/traffic-tap';
import { HostApiError } from './errors';

/** The placeholder that stands for the gateway's bearer token in every export. */
export const TOKEN_PLACEHOLDER = '$GATEHOUSE_TOKEN';
const NEW_ERA_VERSION = '2026-07-28';
/** The most messages one export reads (the audit store holds more: export those with the CLI). */
const MAX_MESSAGES = 50_000;

export interface HarSources {
  tap: TrafficTap;
  audit: AuditStore | undefined | null;
  /** The launch when it is still running (its URL, agent sessions and redactor). */
  launch: Launch | undefined;
}

/** What both the tap and the audit store know of one message. */
interface Msg {
  ts: number;
  agentSession?: string;
  direction: string;
  kind: string;
  method?: string;
  message: unknown;
  exchange?: string;
  latencyMs?: number;
}

interface AgentInfo {
  transport?: string;
  protocolVersion?: string;
}

interface Pair {
  request: Msg;
  response?: Msg;
}

function messagesOf(src: HarSources, session: string): Msg[] {
  if (src.audit) {
    src.audit.flush(); // what the tap saw a moment ago may still be queued
    return src.audit.queryMessages({ session, limit: MAX_MESSAGES, latest: true });
  }
  return src.tap.snapshot().filter((ev) => ev.session === session);
}

function agentsOf(src: HarSources, session: string): Map<string, AgentInfo> {
  const out = new Map<string, AgentInfo>();
  for (const a of src.audit?.getSession(session)?.agentSessions ?? []) out.set(a.id, { transport: a.transport });
  for (const a of src.launch?.gateway.agentSessions() ?? []) out.set(a.id, { transport: a.transport, protocolVersion: a.protocolVersion });
  return out;
}

/** Requests and notifications an agent POSTed, each with the gateway's answer when there was one. */
function httpPairs(msgs: readonly Msg[], agents: Map<string, AgentInfo>, agentSession?: string): Pair[] {
  const pairs: Pair[] = [];
  const open = new Map<string, Pair>();
  const idOf = (m: Msg) => (isObject(m.message) && (typeof m.message.id === 'string' || typeof m.message.id === 'number') ? String(m.message.id) : undefined);
  for (const m of msgs) {
    if (!m.agentSession || (agentSession !== undefined && m.agentSession !== agentSession)) continue;
    // Only Streamable HTTP is HTTP exchanges (stdio and the window's own calls are not); a
    // stateless agent is HTTP by construction.
    const transport = agents.get(m.agentSession)?.transport;
    if (!(transport === 'streamable-http' || m.agentSession.startsWith('stateless-'))) continue;
    const id = idOf(m);
    if (m.direction === 'agent_to_gateway' && (m.kind === 'request' || m.kind === 'notification' || m.kind === 'response')) {
      const pair: Pair = { request: m };
      pairs.push(pair);
      if (m.kind === 'request' && id !== undefined) open.set(`${m.agentSession}\u0000${id}`, pair);
    } else if (m.direction === 'gateway_to_agent' && (m.kind === 'response' || m.kind === 'error') && id !== undefined) {
      const key = `${m.agentSession}\u0000${id}`;
      const pair = open.get(key);
      if (pair) {
        pair.response = m;
        open.delete(key);
      }
    }
  }
  return pairs;
}

function requestHeaders(pair: Pair, agents: Map<string, AgentInfo>): Array<{ name: string; value: string }> {
  const m = pair.request;
  const agent = m.agentSession ?? '';
  const stateless = agent.startsWith('stateless-');
  const headers = [
    { name: 'Content-Type', value: 'application/json' },
    { name: 'Accept', value: 'application/json, text/event-stream' },
    { name: 'Authorization', value: `Bearer ${TOKEN_PLACEHOLDER}` },
  ];
  const body = isObject(m.message) ? m.message : {};
  const params = isObject(body.params) ? body.params : {};
  const initialize = m.method === 'initialize';
  if (stateless) {
    const meta = isObject(params._meta) ? params._meta : {};
    const version = Object.entries(meta).find(([k]) => k.endsWith('protocolVersion'))?.[1];
    headers.push({ name: 'MCP-Protocol-Version', value: typeof version === 'string' ? version : NEW_ERA_VERSION });
    if (m.method) headers.push({ name: 'Mcp-Method', value: m.method });
    const name = m.method === 'resources/read' ? params.uri : params.name;
    if (typeof name === 'string' && (m.method === 'tools/call' || m.method === 'prompts/get' || m.method === 'resources/read')) headers.push({ name: 'Mcp-Name', value: name });
  } else if (!initialize) {
    headers.push({ name: 'Mcp-Session-Id', value: agent });
    const version = agents.get(agent)?.protocolVersion;
    if (version) headers.push({ name: 'MCP-Protocol-Version', value: version });
  }
  return headers;
}

function redactorOf(src: HarSources): (text: string) => string {
  const r = src.launch?.profile.redactor;
  return r ? (t) => r.redactString(t) : (t) => t;
}

function endpointUrl(src: HarSources): string {
  return src.launch?.endpoint?.url ?? 'http://127.0.0.1/mcp';
}

/** A HAR 1.2 log (http://www.softwareishard.com/blog/har-12-spec/) of a launch's HTTP exchanges. */
export function buildHar(src: HarSources, input: { session: string; agentSession?: string }): { fileName: string; har: Record<string, unknown>; entries: number } {
  const agents = agentsOf(src, input.session);
  const pairs = httpPairs(messagesOf(src, input.session), agents, input.agentSession);
  const redact = redactorOf(src);
  const url = endpointUrl(src);
  const entries = pairs.map((p) => {
    const reqText = redact(JSON.stringify(p.request.message));
    const resText = p.response ? redact(JSON.stringify(p.response.message)) : '';
    const time = p.response ? Math.max(0, p.response.ts - p.request.ts) : 0;
    const resHeaders = p.response ? [{ name: 'Content-Type', value: 'application/json' }] : [];
    // initialize's answer is where an old-era session gets its id.
    if (p.response && p.request.method === 'initialize' && p.request.agentSession && !p.request.agentSession.startsWith('stateless-')) {
      resHeaders.push({ name: 'Mcp-Session-Id', value: p.request.agentSession });
    }
    const status = p.response ? 200 : p.request.kind === 'request' ? 0 : 202;
    return {
      startedDateTime: new Date(p.request.ts).toISOString(),
      time,
      request: {
        method: 'POST',
        url,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: requestHeaders(p, agents),
        queryString: [],
        postData: { mimeType: 'application/json', text: reqText },
        headersSize: -1,
        bodySize: Buffer.byteLength(reqText),
      },
      response: {
        status,
        statusText: status === 200 ? 'OK' : status === 202 ? 'Accepted' : '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: resHeaders,
        content: { size: Buffer.byteLength(resText), mimeType: p.response ? 'application/json' : 'x-unknown', ...(p.response ? { text: resText } : {}) },
        redirectURL: '',
        headersSize: -1,
        bodySize: p.response ? Buffer.byteLength(resText) : -1,
      },
      cache: {},
      timings: { send: 0, wait: time, receive: 0 },
      ...(p.request.exchange ? { comment: `exchange ${p.request.exchange}` } : {}),
      _agentSession: p.request.agentSession,
    };
  });
  const har = {
    log: {
      version: '1.2',
      creator: { name: 'Gatehouse', version: '1' },
      pages: [],
      entries,
      comment: `Launch ${input.session}. Rebuilt from the JSON-RPC messages the gateway recorded; Authorization is the placeholder ${TOKEN_PLACEHOLDER}.`,
    },
  };
  return { fileName: `gatehouse-${input.session.slice(0, 8)}${input.agentSession ? `-${input.agentSession.slice(0, 8)}` : ''}.har`, har, entries: entries.length };
}

/** POSIX shell single-quoting: the text as one word, nothing expanded. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A curl command that sends the request of exchange `exchange` again (the token as `$GATEHOUSE_TOKEN`). */
export function curlFor(src: HarSources, input: { session: string; exchange: string }): string {
  const msgs = messagesOf(src, input.session);
  const request = msgs.find((m) => m.exchange === input.exchange && m.direction === 'agent_to_gateway' && m.kind === 'request');
  if (!request) throw new HostApiError(`no agent request of exchange '${input.exchange}' in launch ${input.session} (the window's own calls and server requests have no HTTP leg)`);
  const agents = agentsOf(src, input.session);
  const headers = requestHeaders({ request }, agents);
  const body = redactorOf(src)(JSON.stringify(request.message));
  const lines = [`curl -sS -X POST ${shellQuote(endpointUrl(src))}`];
  for (const h of headers) {
    // The placeholder stays a shell variable (double quotes), so the token comes from the environment.
    lines.push(h.name === 'Authorization' ? `-H "Authorization: Bearer ${TOKEN_PLACEHOLDER}"` : `-H ${shellQuote(`${h.name}: ${h.value}`)}`);
  }
  lines.push(`--data-raw ${shellQuote(body)}`);
  return lines.join(' \\\n  ');
}
