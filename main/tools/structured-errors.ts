// Gives SDK-generated tool failures the same structured shape as ours.
//
// McpServer validates arguments against the input schema before our handler runs and, on a
// mismatch, answers with a text-only `isError` result ("Input validation error: …"). Its
// createToolError is private, so the one public seam is the transport: this wrapper remembers each
// tools/call request and, when its result is an error without structuredContent, adds
// `{error_type: "InvalidArgumentError" | "InternalError", error_message, error_details}`.
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';

interface PendingCall {
  tool: string;
  args: Record<string, unknown>;
}

/** Upper bound on remembered in-flight calls, so a client that never reads cannot grow it. */
const MAX_PENDING = 10_000;

export class StructuredErrorTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly pending = new Map<RequestId, PendingCall>();

  /** pathArguments: tool name → the argument that names a path (reported as path_attempted). */
  constructor(private readonly inner: Transport, private readonly pathArguments: Readonly<Record<string, string>>) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion = (version: string): void => {
    this.inner.setProtocolVersion?.(version);
  };

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onmessage = (message, extra) => {
      const m = message as { id?: RequestId; method?: string; params?: { name?: unknown; arguments?: unknown } };
      if (m.method === 'tools/call' && m.id !== undefined && typeof m.params?.name === 'string' && this.pending.size < MAX_PENDING) {
        const args = typeof m.params.arguments === 'object' && m.params.arguments !== null ? (m.params.arguments as Record<string, unknown>) : {};
        this.pending.set(m.id, { tool: m.params.name, args });
      }
      this.onmessage?.(message, extra);
    };
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: RequestId; result?: Record<string, unknown>; error?: unknown };
    if (m.id !== undefined && (m.result !== undefined || m.error !== undefined)) {
      const call = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (call && m.result && m.result.isError === true && m.result.structuredContent === undefined) {
        message = { ...message, result: this.structure(call, m.result) } as JSONRPCMessage;
      }
    }
    await this.inner.send(message, options);
  }

  async close(): Promise<void> {
    this.pending.clear();
    await this.inner.close();
  }

  private structure(call: PendingCall, result: Record<string, unknown>): Record<string, unknown> {
    const content = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
    const text = content.find((c) => c.type === 'text')?.text ?? 'tool call failed';
    const invalid = /^(MCP error -32602: )?Input validation error/.test(text);
    const details: Record<string, unknown> = {};
    const pathArg = this.pathArguments[call.tool];
    if (pathArg) details.path_attempted = typeof call.args[pathArg] === 'string' ? call.args[pathArg] : null;
    const structured = { error_type: invalid ? 'InvalidArgumentError' : 'InternalError', error_message: text, error_details: details };
    return { ...result, content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  }
}
