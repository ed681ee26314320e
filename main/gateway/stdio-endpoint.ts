// The stdio face of the gateway: `gatehouse gateway --profile P` is itself an MCP server on
// stdin/stdout for hosts that launch servers themselves (Claude Desktop, Cursor, VS Code).
// It reads newline and Content-Length framing (auto-detected) and answers each request in the
// framing it came in. stdout carries protocol bytes only.
//
// Besides JSON-RPC it accepts the legacy tool envelope, one per line:
//   {"tool_name": "read_file", "arguments": {...}}
// answered with
//   {"status": "success"|"failure", "data": ..., "error": {error_type, error_message, error_details} | null, "explanation": ...}
import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FramedStreamTransport } from '../protocol/framed-stream-transport';
import { transportObserver, type TrafficTap } from '../protocol/traffic-tap';
import type { DecodedFault } from '../protocol/framing';
import type { Redactor } from '../secrets/redactor';
import type { Gateway } from './gateway';
import { EXPLANATION_META_KEY } from '../tools/tool-kit';

export interface StdioEndpointOptions {
  gateway: Gateway;
  tap: TrafficTap;
  redactor: Redactor;
  input: Readable;
  output: Writable;
}

export interface StdioEndpoint {
  agentSession: string;
  /** Resolves when the client closes stdin (or the transport closes). */
  closed: Promise<void>;
  close(): Promise<void>;
}

export interface LegacyEnvelope {
  tool_name: string;
  arguments?: Record<string, unknown>;
}

export function isLegacyEnvelope(value: unknown): value is LegacyEnvelope {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.tool_name === 'string' && (v.arguments === undefined || (typeof v.arguments === 'object' && v.arguments !== null && !Array.isArray(v.arguments)));
}

export interface LegacyReply {
  status: 'success' | 'failure';
  data: unknown;
  error: { error_type: string; error_message: string; error_details: Record<string, unknown> } | null;
  explanation: string;
}

function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

/**
 * The legacy envelope's `explanation` for a success: the built-in tools say exactly what they did
 * (`_meta["gatehouse/explanation"]`, e.g. "Successfully read 65 characters from src/app/main.py
 * using utf-8 encoding."); for another server's tool, what came back, by kind and size.
 */
export function successExplanation(canonical: string, result: CallToolResult): string {
  const own = result._meta?.[EXPLANATION_META_KEY];
  if (typeof own === 'string' && own.length > 0) return own;
  const content = result.content ?? [];
  const kinds = new Map<string, number>();
  for (const c of content) kinds.set(c.type, (kinds.get(c.type) ?? 0) + 1);
  const chars = textOf(result).length;
  const parts = [...kinds].map(([kind, n]) => `${n} ${kind} item${n === 1 ? '' : 's'}${kind === 'text' ? ` (${chars} characters)` : ''}`);
  if (result.structuredContent !== undefined) parts.push('structured content');
  return `Successfully called ${canonical}: it returned ${parts.length ? parts.join(' and ') : 'an empty result'}.`;
}

/** Runs one legacy envelope through the gateway (same policy, approvals and audit as tools/call). */
export async function callLegacyEnvelope(gateway: Gateway, envelope: LegacyEnvelope, agentSession: string): Promise<LegacyReply> {
  const name = envelope.tool_name;
  const canonical = gateway.currentSurface().lookup.get(name)?.canonical ?? name;
  try {
    const result = await gateway.callTool(name, envelope.arguments ?? {}, { agentSession });
    const structured = result.structuredContent as Record<string, unknown> | undefined;
    if (!result.isError) {
      return {
        status: 'success',
        data: structured ?? { text: textOf(result), content: result.content },
        error: null,
        explanation: successExplanation(canonical, result),
      };
    }
    const text = textOf(result);
    if (structured && typeof structured.error_type === 'string') {
      return {
        status: 'failure',
        data: null,
        error: {
          error_type: structured.error_type,
          error_message: String(structured.error_message ?? text),
          error_details: (structured.error_details as Record<string, unknown>) ?? {},
        },
        explanation: `${canonical} failed: ${structured.error_type}`,
      };
    }
    const denied = text.startsWith('DENY:');
    return {
      status: 'failure',
      data: null,
      error: { error_type: denied ? 'PolicyDeniedError' : 'ToolError', error_message: text, error_details: { tool: canonical } },
      explanation: denied ? `the policy did not allow ${canonical}` : `${canonical} returned an error`,
    };
  } catch (err) {
    const unknownTool = err instanceof McpError && err.code === ErrorCode.InvalidParams && /Unknown tool/.test(err.message);
    return {
      status: 'failure',
      data: null,
      error: {
        error_type: unknownTool ? 'UnknownToolError' : 'ProtocolError',
        error_message: err instanceof McpError ? err.message.replace(/^MCP error -?\d+: /, '') : String(err),
        error_details: { tool_name: name },
      },
      explanation: unknownTool ? `no tool named '${name}' in this workspace` : `the call to ${canonical} failed`,
    };
  }
}

export async function startStdioEndpoint(opts: StdioEndpointOptions): Promise<StdioEndpoint> {
  const { gateway } = opts;
  const agentSession = randomUUID();
  const observer = transportObserver(
    opts.tap,
    { session: gateway.session, agentSession, inbound: 'agent_to_gateway', outbound: 'gateway_to_agent', annotate: gateway.downstreamAnnotate(agentSession) },
    opts.redactor,
  );
  // Declared before use by the fault handler; assigned once, right below.
  // eslint-disable-next-line prefer-const
  let transport: FramedStreamTransport;

  const onFault = (item: DecodedFault) => {
    const framing = item.framing ?? 'line';
    const value = item.json;
    if (isLegacyEnvelope(value)) {
      void callLegacyEnvelope(gateway, value, agentSession).then((reply) => transport.sendRaw(reply, framing).catch(() => {}));
      return;
    }
    // JSON-RPC 2.0 §5.1: -32700 for unparseable input, -32600 for an invalid request (with its id when we can read one).
    const id = value && typeof value === 'object' && !Array.isArray(value) && ['string', 'number'].includes(typeof (value as { id?: unknown }).id) ? (value as { id: string | number }).id : null;
    const parseError = item.reason.startsWith('not JSON:');
    const error = parseError
      ? { code: ErrorCode.ParseError, message: 'Parse error' }
      : { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${item.reason}` };
    void transport.sendRaw({ jsonrpc: '2.0', id, error }, framing).catch(() => {});
  };

  transport = new FramedStreamTransport(opts.input, opts.output, {
    framing: 'auto',
    writeFraming: 'mirror',
    // The client ends the session by closing our stdin; stdout stays ours until exit.
    endWritableOnClose: false,
    observer: {
      inbound: observer.inbound,
      outbound: observer.outbound,
      fault: (item) => {
        observer.fault(item);
        onFault(item);
      },
    },
  });
  const closed = new Promise<void>((resolve) => {
    const server = gateway.createSessionServer({ id: agentSession, transport: 'stdio' });
    const prev = server.onclose;
    server.onclose = () => {
      prev?.();
      resolve();
    };
    void server.connect(transport);
  });
  return { agentSession, closed, close: () => transport.close() };
}
