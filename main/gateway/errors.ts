// JSON-RPC errors as the gateway sends them. The SDK's McpError puts "MCP error <code>: " into
// its message, and the SDK writes `error.message` into the response, so an McpError thrown (or
// passed on) by the gateway would reach a client with the prefix once, or twice when a client
// SDK adds its own. Every error the gateway raises or relays goes out with the bare message.
import { McpError } from '@modelcontextprotocol/sdk/types.js';

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** An Error carrying a JSON-RPC code, whose message goes out as is. */
export class GatewayError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The error object for a JSON-RPC response: code, message without an SDK prefix, data. */
export function toRpcError(err: unknown, fallbackCode = -32603): RpcError {
  if (err instanceof McpError) {
    const prefix = `MCP error ${err.code}: `;
    const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    return { code: err.code, message, ...(err.data !== undefined ? { data: err.data } : {}) };
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const data = (err as { data?: unknown }).data;
    return { code: typeof code === 'number' && Number.isSafeInteger(code) ? code : fallbackCode, message: err.message, ...(data !== undefined ? { data } : {}) };
  }
  return { code: fallbackCode, message: String(err) };
}

/** An upstream (or own) error as an Error the SDK sends on with its bare message. */
export function passThroughError(err: unknown): Error {
  if (err instanceof GatewayError) return err;
  const e = toRpcError(err);
  return new GatewayError(e.code, e.message, e.data);
}
