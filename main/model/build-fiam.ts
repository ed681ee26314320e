// ModelInput → a FIAM v0.2 document in the specimen's vocabulary (docs/fiam.md has the mapping).
//
// The shape of a launched workspace:
//   agent session(s) ──(gateway binding: Streamable HTTP on 127.0.0.1, or stdio)──► Gatehouse
//   Gatehouse ──(one binding per server: mcp-stdio, or Streamable HTTP / legacy SSE)──► server
// Gatehouse is the MCP client of every server and the MCP server of every agent; each server has
// its own MCP contract (the operations its capabilities allow) and a tool contract per tool, whose
// arguments and result are information shapes carrying the tool's JSON Schemas.
//
// Evidence: what a server answered (`initialize`, `tools/list`) and what the MCP specification
// says is `declared`; what follows from a binding's nature (stdio is a local process) is
// `inferred`; what the audit store recorded is `observed`, with counts, first/last seen and the
// audit rows cited. Only an interaction the audit store saw is `realization_status: executed`.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FiamAssertion, FiamDocument, FiamEvidence } from './fiam-schema';
import type { ModelInput, ModelServer } from './model-input';
import { key, type Citation, type Sighting } from './observations';

type Doc = FiamDocument;
type Interaction = Doc['interactions'][number];

/** At most this many agent sessions are named per executed tool interaction. */
const MAX_ON_BEHALF = 10;

const MCP_SPEC = 'MCP specification (modelcontextprotocol.io/specification)';

function slug(s: string): string {
  const v = s.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+/g, '-').replace(/^-|-$/g, '');
  return v.length > 0 ? v : 'x';
}

/** Hands out ids, each once: `fs.read` and `fs_read` would both slug to `fs-read`. */
class Ids {
  private readonly used = new Set<string>();
  private readonly memo = new Map<string, string>();
  of(parts: string[]): string {
    const want = parts.map(slug).join('.');
    const memoKey = parts.join('\u0000');
    const known = this.memo.get(memoKey);
    if (known) return known;
    let id = want;
    for (let n = 2; this.used.has(id); n++) id = `${want}-${n}`;
    this.used.add(id);
    this.memo.set(memoKey, id);
    return id;
  }
}

const iso = (ts: number): string => new Date(ts).toISOString();

function citation(c: Citation) {
  return {
    session: c.session,
    ...(c.exchange ? { exchange: c.exchange } : {}),
    ...(c.agentSession ? { agent_session: c.agentSession } : {}),
    audit_seq: c.seq,
    at: iso(c.ts),
  };
}

const declared = (source: string, confidence = 1.0): FiamEvidence => ({ mode: 'fiam.evidence.declared', source, confidence });
const inferred = (source: string, confidence: number): FiamEvidence => ({ mode: 'fiam.evidence.inferred', source, confidence });

function observed(source: string, what: string, s: Sighting): FiamEvidence {
  return {
    mode: 'fiam.evidence.observed',
    source: `${source}: ${what}`,
    confidence: 1.0,
    observed: {
      count: s.count,
      ...(s.errors > 0 ? { errors: s.errors } : {}),
      first_seen: iso(s.first.ts),
      last_seen: iso(s.last.ts),
      sessions: [...s.sessions],
      first: citation(s.first),
      last: citation(s.last),
    },
  };
}

/** MCP methods a server's capabilities make available (`initialize` and `ping` always are). */
function operationsOf(caps: ModelServer['capabilities'], hasTools: boolean): string[] {
  const ops = ['initialize'];
  if (caps?.tools || hasTools) ops.push('tools/list', 'tools/call');
  if (caps?.resources) ops.push('resources/list', 'resources/read');
  if (caps?.prompts) ops.push('prompts/list', 'prompts/get');
  if (caps?.completions) ops.push('completion/complete');
  return ops;
}

function isLoopback(url: string): boolean {
  try {
    const h = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return h === 'localhost' || h === '::1' || /^127\./.test(h);
  } catch {
    return false;
  }
}

export function buildFiam(input: ModelInput): FiamDocument {
  const ids = new Ids();
  const obs = input.observations;
  const doc: Doc = {
    fiam_version: '0.2',
    instance: {
      id: ids.of(['gatehouse', input.profile.name]),
      kind: 'model',
      title: `Gatehouse workspace '${input.profile.name}'`,
      status: 'provisional',
      intent: `The agent-to-tool interfaces of workspace profile '${input.profile.name}' (${input.profile.file}) as Gatehouse launched it${obs ? `, with what its audit store observed in ${obs.sessions.length} session(s)` : ''}; generated ${input.generatedAt}.`,
    },
    nodes: [],
    ports: [],
    contracts: [],
    bindings: [],
    channels: [],
    interactions: [],
    assertions: [],
    information_shapes: [],
  };
  const assert = (a: FiamAssertion) => doc.assertions.push(a);
  const relation = (id: string, subject: string, predicate: string, object: string, evidence: FiamEvidence, facets?: Record<string, string>) =>
    assert({ id, assertion_kind: 'relation', subject, predicate, polarity: 'asserted', object_ref: object, evidence, ...(facets ? { facets } : {}) });
  const property = (id: string, subject: string, predicate: string, value: string, evidence: FiamEvidence, facets?: Record<string, string>) =>
    assert({ id, assertion_kind: 'property', subject, predicate, value, evidence, polarity: 'asserted', ...(facets ? { facets } : {}) });
  const json = { representation: 'fiam.representation.json' };

  // ---- generic MCP shapes (one set: every server's tools/list and tools/call share them) -----
  const shape = (parts: string[], name: string, kind: 'object' | 'collection', schema?: Record<string, unknown>) => {
    const id = ids.of(['shape', ...parts]);
    doc.information_shapes.push({ id, kind: 'information-shape', name, shape_kind: `fiam.information-shape.${kind}`, ...(schema ? { schema } : {}) });
    return id;
  };
  const catalog = shape(['mcp', 'tool-catalog'], 'MCP tool catalog', 'collection');
  const descriptor = shape(['mcp', 'tool-descriptor'], 'MCP tool descriptor', 'object');
  const callRequest = shape(['mcp', 'tool-call-request'], 'MCP tools/call request', 'object');
  const callResult = shape(['mcp', 'tool-call-result'], 'MCP tools/call result', 'object');
  relation(ids.of(['assertion', 'mcp', 'catalog-elements']), catalog, 'fiam.relation.element-shape', descriptor, declared(`${MCP_SPEC}, tools/list`), { slot: 'tools', role: 'fiam.shape-role.element' });

  // ---- Gatehouse and the agents ----------------------------------------------------------------
  const gatehouse = ids.of(['node', 'gatehouse']);
  doc.nodes.push({ id: gatehouse, kind: 'system-node', name: `Gatehouse (profile ${input.profile.name})`, node_type: 'fiam.node-type.application', description: 'Agent-host launcher: supervises the servers and puts one governed MCP gateway (policy, approvals, audit) in front of them.' });

  const gatewayContract = ids.of(['contract', 'mcp', 'gateway']);
  const gatewayOps = mcpContract(gatewayContract, `Gatehouse gateway (${input.toolSurface} tool surface)`, operationsOf({ tools: {} }, true), ['gateway']);
  const gatewayPort = ids.of(['port', 'gatehouse', 'gateway']);
  doc.ports.push({ id: gatewayPort, owner: gatehouse, participations: [{ contract: gatewayContract, mode: 'offers', roles: ['fiam.role.server'] }] });

  type Agent = { node: string; port: string; transport: string };
  const agents: Agent[] = [];
  const agentNodes = new Map<string, string>(); // agent session id → node id
  const addAgent = (parts: string[], name: string, transport: string, description?: string) => {
    const node = ids.of(['node', 'agent', ...parts]);
    const port = ids.of(['port', 'agent', ...parts, 'mcp-client']);
    doc.nodes.push({ id: node, kind: 'system-node', name, node_type: 'fiam.node-type.application', ...(description ? { description } : {}) });
    doc.ports.push({ id: port, owner: node, participations: [{ contract: gatewayContract, mode: 'requires', roles: ['fiam.role.client'] }] });
    agents.push({ node, port, transport });
  };
  const seenAgents = new Map<string, { transport: string; client?: { name: string; version?: string } }>();
  for (const a of obs?.agentSessions ?? []) seenAgents.set(a.id, { transport: a.transport ?? 'unknown', ...(a.client ? { client: a.client } : {}) });
  for (const a of input.agentSessions) seenAgents.set(a.id, { transport: a.transport, ...(a.client ? { client: a.client } : {}) });
  for (const [id, a] of seenAgents) {
    const label = a.client ? `${a.client.name}${a.client.version ? ` ${a.client.version}` : ''}` : 'MCP client';
    addAgent([id.slice(0, 8)], `Agent session ${id.slice(0, 8)} (${label})`, a.transport, `agent session ${id}`);
    agentNodes.set(id, agents[agents.length - 1]!.node);
  }
  if (agents.length === 0) {
    // Nobody connected yet: the agent a profile is launched for, as the role it will take.
    addAgent(['host'], 'Agent host (any MCP client)', input.gatewayUrl ? 'streamable-http' : 'stdio', 'No agent session has connected; this is the client role the gateway serves.');
  }

  // ---- the gateway's bindings (one per transport the agents use or the launch serves) ---------
  const gatewayTransports = new Set(agents.map((a) => (a.transport === 'sse' ? 'streamable-http' : a.transport)));
  if (input.gatewayUrl) gatewayTransports.add('streamable-http');
  if (input.gatewayStdio) gatewayTransports.add('stdio');
  gatewayTransports.delete('unknown');
  if (gatewayTransports.size === 0) gatewayTransports.add('stdio');
  const gatewayBindings = new Map<string, { binding: string; channel: string }>();
  for (const transport of gatewayTransports) {
    const consumers = agents.filter((a) => (a.transport === 'sse' ? 'streamable-http' : a.transport) === transport || a.transport === 'unknown').map((a) => a.port);
    const b = binding({
      parts: ['gateway', transport],
      contract: gatewayContract,
      provider: gatewayPort,
      consumers: consumers.length ? consumers : agents.map((a) => a.port),
      http: transport === 'streamable-http' ? { url: input.gatewayUrl ?? 'http://127.0.0.1:<port>/mcp', sse: false } : undefined,
      command: 'gatehouse gateway --profile ' + input.profile.name,
      protocolVersion: input.gatewayProtocolVersion,
      source: 'Gatehouse gateway (initialize)',
      loopbackDeclared: true,
    });
    gatewayBindings.set(transport, b);
  }
  const agentTransport = [...gatewayBindings.keys()][0]!;
  const gw = gatewayBindings.get(agentTransport)!;
  for (const op of ['tools/list', 'tools/call']) {
    const seen = obs?.downstream.get(op);
    const x = interaction(['gateway', op], gatewayOps.get(op)!, gw, agents[0]!.node, gatehouse, seen);
    if (seen) property(ids.of(['assertion', 'gateway', op, 'observed']), x, 'fiam.property.realization', 'fiam.interaction-status.executed', observed(obs!.source, `${op} from agent sessions to the gateway`, seen));
  }

  // ---- each server ------------------------------------------------------------------------------
  for (const server of input.servers) {
    const remote = server.kind === 'http';
    const node = ids.of(['node', 'server', server.id]);
    const title = server.serverInfo ? `${server.serverInfo.title ?? server.serverInfo.name} ${server.serverInfo.version}` : server.id;
    doc.nodes.push({
      id: node,
      kind: 'system-node',
      name: `MCP server '${server.id}' (${title})`,
      node_type: remote ? 'fiam.node-type.remote-service' : 'fiam.node-type.process',
      ...(server.description ? { description: server.description } : {}),
    });
    const contract = ids.of(['contract', 'mcp', server.id]);
    const ops = mcpContract(contract, `MCP tools of server '${server.id}'`, operationsOf(server.capabilities, server.tools.length > 0), [server.id]);
    const serverPort = ids.of(['port', 'server', server.id, 'mcp']);
    const clientPort = ids.of(['port', 'gatehouse', 'upstream', server.id]);
    doc.ports.push({ id: serverPort, owner: node, participations: [{ contract, mode: 'offers', roles: ['fiam.role.server'] }] });
    doc.ports.push({ id: clientPort, owner: gatehouse, participations: [{ contract, mode: 'requires', roles: ['fiam.role.client'] }] });
    const b = binding({
      parts: [server.id],
      contract,
      provider: serverPort,
      consumers: [clientPort],
      ...(remote ? { http: { url: server.address, sse: server.httpTransport === 'sse' } } : {}),
      command: server.address,
      ...(server.protocolVersion ? { protocolVersion: server.protocolVersion } : {}),
      source: server.serverInfo ? `initialize answer of server '${server.id}' (${title})` : `profile ${input.profile.file}, servers.${server.id}`,
      loopbackDeclared: false,
    });

    const seen = (method: string) => obs?.upstream.get(key(server.id, method));
    const listOp = ops.get('tools/list');
    const callOp = ops.get('tools/call');
    for (const [method, op] of ops) {
      if (method !== 'tools/list' && method !== 'tools/call' && method !== 'initialize') continue;
      const s = seen(method);
      const x = interaction([server.id, method], op, b, gatehouse, node, s);
      if (s) property(ids.of(['assertion', server.id, method, 'observed']), x, 'fiam.property.realization', 'fiam.interaction-status.executed', observed(obs!.source, `${method} from Gatehouse to server '${server.id}'`, s));
    }
    const listed = `tools/list answer of server '${server.id}'`;
    if (listOp) relation(ids.of(['assertion', server.id, 'tools-list-produces']), listOp, 'fiam.relation.produces-shape', catalog, declared(`${MCP_SPEC}, tools/list`), { role: 'fiam.shape-role.response', ...json });
    if (callOp) {
      relation(ids.of(['assertion', server.id, 'tools-call-accepts']), callOp, 'fiam.relation.accepts-shape', callRequest, declared(`${MCP_SPEC}, tools/call`), { role: 'fiam.shape-role.request', ...json });
      relation(ids.of(['assertion', server.id, 'tools-call-produces']), callOp, 'fiam.relation.produces-shape', callResult, declared(`${MCP_SPEC}, tools/call`), { role: 'fiam.shape-role.response', ...json });
    }

    for (const tool of server.tools) {
      // Canonical names (ARCHITECTURE.md): the built-ins' own (`fs.read`), else `<server>.<tool>`.
      const canonicalName = server.kind === 'builtin' ? tool.name : `${server.id}.${tool.name}`;
      toolContract(server, tool, canonicalName, listOp, callOp, b, node, listed);
    }
  }
  return doc;

  // ---- helpers (closures over doc and ids) -----------------------------------------------------

  function mcpContract(id: string, name: string, methods: string[], scope: string[]): Map<string, string> {
    const ops = new Map(methods.map((m) => [m, ids.of(['operation', 'mcp', ...scope, m.replace('/', '-')])]));
    doc.contracts.push({
      id,
      kind: 'interface-contract',
      name,
      purpose: ['fiam.purpose.tool-invocation'],
      contract_forms: ['fiam.contract-form.mcp'],
      operations: [...ops].map(([m, opId]) => ({ id: opId, name: m, interaction_style: 'fiam.interaction-style.rpc' })),
      family_labels: ['fiam.family.agent-tool-interface'],
    });
    return ops;
  }

  function binding(b: {
    parts: string[];
    contract: string;
    provider: string;
    consumers: string[];
    http?: { url: string; sse: boolean };
    command: string;
    protocolVersion?: string;
    source: string;
    loopbackDeclared: boolean;
  }): { binding: string; channel: string } {
    const id = ids.of(['binding', ...b.parts]);
    const channel = ids.of(['channel', ...b.parts]);
    const stack = [
      { role: 'fiam.stack-role.application-protocol', term: 'fiam.protocol.mcp' },
      { role: 'fiam.stack-role.messaging-protocol', term: 'fiam.protocol.json-rpc-2.0' },
    ];
    if (b.http) {
      stack.push({ role: 'fiam.stack-role.transport-protocol', term: b.http.sse ? 'fiam.protocol.mcp-http-sse' : 'fiam.protocol.mcp-streamable-http' });
      stack.push({ role: 'fiam.stack-role.network-carrier', term: 'fiam.carrier.http' });
    } else {
      stack.push({ role: 'fiam.stack-role.ipc-process-carrier', term: 'fiam.carrier.stdio' });
    }
    doc.bindings.push({
      id,
      contract: b.contract,
      provider_port: b.provider,
      consumer_ports: b.consumers,
      binding_profile: b.http ? (b.http.sse ? 'fiam.binding-profile.mcp-sse' : 'fiam.binding-profile.mcp-streamable-http') : 'fiam.binding-profile.mcp-stdio',
      communication_stack: stack,
      addressing: b.http ? { kind: 'fiam.addressing.url', value: b.http.url } : { kind: 'fiam.addressing.process-spawn', value: b.command },
      // Streamable HTTP: a session is an Mcp-Session-Id the server hands out at initialize
      // (MCP basic/transports, "Session Management"); stdio: the life of the process.
      session_model: b.http ? 'fiam.session.mcp-session-id' : 'fiam.session.long-lived-process',
    });
    doc.channels.push({
      id: channel,
      kind: 'channel',
      channel_type: b.http ? 'fiam.channel.http-request-response' : 'fiam.channel.bidirectional-byte-stream',
      mediation: 'fiam.mediation.direct',
    });
    property(ids.of(['assertion', ...b.parts, 'protocol']), id, 'fiam.property.communication-protocol', 'fiam.protocol.mcp', declared(b.source), b.protocolVersion ? { protocol_version: b.protocolVersion } : undefined);
    if (!b.http) property(ids.of(['assertion', ...b.parts, 'boundary']), id, 'fiam.property.execution-boundary', 'fiam.execution-boundary.local-process', inferred('stdio binding semantics', 0.99));
    else if (b.loopbackDeclared) property(ids.of(['assertion', ...b.parts, 'boundary']), id, 'fiam.property.execution-boundary', 'fiam.execution-boundary.local-host', declared('Gatehouse binds its gateway to 127.0.0.1 only'));
    else if (isLoopback(b.http.url)) property(ids.of(['assertion', ...b.parts, 'boundary']), id, 'fiam.property.execution-boundary', 'fiam.execution-boundary.local-host', inferred('loopback address in the server URL', 0.95));
    else property(ids.of(['assertion', ...b.parts, 'boundary']), id, 'fiam.property.execution-boundary', 'fiam.execution-boundary.remote-network', inferred('non-loopback host in the server URL', 0.9));
    return { binding: id, channel };
  }

  function interaction(parts: string[], operation: string, b: { binding: string; channel: string }, initiator: string, responder: string, seen?: Sighting): string {
    const id = ids.of(['interaction', ...parts.map((p) => p.replace('/', '-'))]);
    const x: Interaction = {
      id,
      kind: 'interaction',
      operation,
      binding: b.binding,
      channel: b.channel,
      temporal_semantics: 'fiam.temporal.synchronous',
      participants: { initiator, responder },
    };
    if (seen) x.realization_status = 'fiam.interaction-status.executed';
    doc.interactions.push(x);
    return id;
  }

  function toolContract(
    server: ModelServer,
    tool: Tool,
    canonicalName: string,
    listOp: string | undefined,
    callOp: string | undefined,
    b: { binding: string; channel: string },
    node: string,
    listed: string,
  ): void {
    const scope = ['tool', server.id, tool.name];
    const contract = ids.of(['contract', ...scope]);
    const operation = ids.of(['operation', ...scope]);
    const advertised = server.advertised[canonicalName] ?? [];
    doc.contracts.push({
      id: contract,
      kind: 'interface-contract',
      name: `${tool.name} tool`,
      description: `${canonicalName}${advertised.length ? ` (advertised to agents as ${advertised.join(', ')})` : ''}${tool.description ? `: ${firstSentence(tool.description)}` : ''}`,
      purpose: ['fiam.purpose.tool-invocation'],
      operations: [{ id: operation, name: tool.name, interaction_style: 'fiam.interaction-style.rpc' }],
    });
    const args = shape([...scope, 'args'], `${tool.name} arguments`, 'object', tool.inputSchema as Record<string, unknown>);
    const result = shape([...scope, 'result'], `${tool.name} result`, 'object', tool.outputSchema as Record<string, unknown> | undefined);
    const src = declared(listed);
    if (listOp) relation(ids.of(['assertion', ...scope, 'discovered']), operation, 'fiam.relation.discovered-via', listOp, src);
    if (callOp) {
      relation(ids.of(['assertion', ...scope, 'embedded']), contract, 'fiam.relation.embedded-in', callOp, declared(`${MCP_SPEC}, tools/call`), { slot: 'params.arguments' });
      relation(ids.of(['assertion', ...scope, 'call-embeds-args']), callRequest, 'fiam.relation.embeds-shape', args, declared(`${MCP_SPEC}, tools/call`), { slot: 'params.arguments', role: 'fiam.shape-role.payload', tool: canonicalName });
    }
    relation(ids.of(['assertion', ...scope, 'accepts']), operation, 'fiam.relation.accepts-shape', args, declared(`${listed}: inputSchema`), { role: 'fiam.shape-role.request' });
    relation(
      ids.of(['assertion', ...scope, 'produces']),
      operation,
      'fiam.relation.produces-shape',
      result,
      tool.outputSchema ? declared(`${listed}: outputSchema`) : declared(`${MCP_SPEC}, CallToolResult (no outputSchema)`, 0.9),
      { role: 'fiam.shape-role.response' },
    );
    const seen = obs?.toolCalls.get(key(server.id, canonicalName));
    const x = interaction(scope, operation, b, gatehouse, node, seen);
    if (seen) {
      const what = `tools/call ${tool.name} from Gatehouse to server '${server.id}' on behalf of ${plural(seen.agentSessions.size, 'agent session')}`;
      relation(ids.of(['assertion', ...scope, 'actual-input']), x, 'fiam.relation.accepts-shape', args, observed(obs!.source, what, seen), { role: 'fiam.shape-role.request', ...json });
      relation(ids.of(['assertion', ...scope, 'actual-output']), x, 'fiam.relation.produces-shape', result, observed(obs!.source, what, seen), { role: 'fiam.shape-role.response', ...json });
      // Gatehouse makes the upstream call; the agent session that asked for it is named here.
      for (const agent of [...seen.agentSessions].slice(0, MAX_ON_BEHALF)) {
        const agentNode = agentNodes.get(agent);
        if (agentNode) relation(ids.of(['assertion', ...scope, 'on-behalf-of', agent.slice(0, 8)]), x, 'fiam.relation.on-behalf-of', agentNode, observed(obs!.source, `${what} (counts for all of them): agent session ${agent}`, seen));
      }
    }
  }
}

function firstSentence(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  const m = /^(.{1,240}?[.!?])(\s|$)/.exec(one);
  return m ? m[1]! : one.slice(0, 240);
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}
