// The `requestState` the gateway hands a new-era agent with an `input_required` result (MCP
// 2026-07-28 basic/utilities/mrtr): sealed with AES-256-GCM under a key made when the gateway
// starts and kept in its memory only, so only this gateway can read one back. It names the held
// exchange, the round, the request it belongs to (method and name) and the token that asked;
// a state that was tampered with, sealed by another gateway, replayed for a round already
// answered, or presented for another request or by another token is refused.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealedState {
  /** The held exchange. */
  exchange: string;
  /** The input_required round this state answers (1 for the first). */
  round: number;
  /** `tools/call:<name>`, `prompts/get:<name>`…: the request it may only be used with. */
  target: string;
  /** The bearer-token label that started the call ('' = the main token; stdio: the session). */
  caller: string;
  issuedAt: number;
}

/** Refused states answer with this code (the spec's Invalid params for a state failing verification). */
export const INVALID_REQUEST_STATE = -32602;

export class RequestStateError extends Error {
  readonly code = INVALID_REQUEST_STATE;
}

const PREFIX = 'gh1.';

export class RequestStateSealer {
  private readonly key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    if (key.length !== 32) throw new Error(`request-state key: expected 32 bytes, got ${key.length}`);
    this.key = key;
  }

  seal(state: SealedState): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The state inside, or a RequestStateError saying why it is refused. */
  open(token: unknown): SealedState {
    if (typeof token !== 'string') throw new RequestStateError(`Invalid requestState: expected the string the gateway sent, got ${token === null ? 'null' : typeof token}`);
    if (!token.startsWith(PREFIX)) throw new RequestStateError('Invalid requestState: not one this gateway issued');
    const raw = Buffer.from(token.slice(PREFIX.length), 'base64url');
    // base64url decoding skips characters outside its alphabet: a re-encode that differs means the text was altered.
    if (raw.length < 29 || raw.toString('base64url') !== token.slice(PREFIX.length)) throw new RequestStateError('Invalid requestState: it failed its integrity check');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      return JSON.parse(text) as SealedState;
    } catch {
      throw new RequestStateError('Invalid requestState: it failed its integrity check (altered, or sealed by another gateway)');
    }
  }
}
