// A fast structural check of one JSON-RPC 2.0 message, by the same rules as the SDK's
// JSONRPCMessageSchema (strict envelopes, string or integer ids, object params/result, an
// error with an integer code and a string message). The common shapes are checked by hand;
// anything else, and anything carrying `_meta` (whose fields the schema checks), goes through
// the schema, so the verdict is always the SDK's. It exists because the zod union runs on
// every message of every hop and, for a response, first fails the request and notification
// branches (building their issues) before it matches.
import { isObject } from '../base/is-object';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);

function isId(v: unknown): boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

function onlyKeys(o: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
}

/** True when the hand check can vouch for `value`; false means "ask the schema". */
function fastValid(value: unknown): boolean {
  if (!isObject(value) || value.jsonrpc !== '2.0') return false;
  if (typeof value.method === 'string') {
    const params = value.params;
    if (params !== undefined && !(isObject(params) && params._meta === undefined)) return false;
    if ('id' in value) return isId(value.id) && onlyKeys(value, REQUEST_KEYS);
    return onlyKeys(value, NOTIFICATION_KEYS);
  }
  if ('result' in value) {
    const result = value.result;
    return isId(value.id) && isObject(result) && result._meta === undefined && onlyKeys(value, RESULT_KEYS);
  }
  if ('error' in value) {
    const error = value.error;
    return (
      (value.id === undefined || isId(value.id)) &&
      isObject(error) &&
      typeof error.code === 'number' &&
      Number.isInteger(error.code) &&
      typeof error.message === 'string' &&
      onlyKeys(value, ERROR_KEYS)
    );
  }
  return false;
}

/** The message as the SDK would accept it, or undefined when it is not JSON-RPC 2.0. */
export function parseJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (fastValid(value)) return value as JSONRPCMessage;
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? (parsed.data as JSONRPCMessage) : undefined;
}

/** Validation only (the input is kept as it arrived): the fast check, else the schema's result. */
export function checkJsonRpcMessage(value: unknown): ReturnType<typeof JSONRPCMessageSchema.safeParse> | { success: true } {
  if (fastValid(value)) return { success: true };
  return JSONRPCMessageSchema.safeParse(value);
}
