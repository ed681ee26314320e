// A server's response the gateway refuses (nested too deep, an id it cannot carry exactly, too
// large) still answers a request someone is waiting on. When the refused frame's id can be
// read, the request it answers is failed at once with an error that says why, instead of
// waiting out its timeout (docs/gateway.md "Limits under faults and load": every request gets exactly one answer).
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { DecodedFault } from './framing';

/** The error response standing in for a refused response, or undefined when its id is unusable. */
export function refusedResponse(item: DecodedFault): JSONRPCMessage | undefined {
  if (item.rawId === undefined) return undefined;
  let id: unknown;
  try {
    id = JSON.parse(item.rawId);
  } catch {
    return undefined;
  }
  // An id we could not carry exactly cannot be one we sent (ours are small integers).
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  return {
    jsonrpc: '2.0',
    id,
    error: { code: ErrorCode.InternalError, message: `the server's response was refused by the gateway: ${item.reason}` },
  } as JSONRPCMessage;
}
