// The approvals relay's wire format: how a `gatehouse gateway` process (started by another MCP
// host) hands an APPROVAL to a running Gatehouse window and gets the person's answer back.
//
// Newline-delimited JSON over a Unix domain socket `<dataDir>/approvals.sock` (a named pipe on
// Windows), one connection per gateway process, every line validated with zod on both sides.
//
//   gateway → window   {type:'hello', pid, profile, version}            first, exactly once; `pid`
//                                                                       is informational and ignored:
//                                                                       the window reads the peer's pid
//                                                                       from the socket (SO_PEERCRED)
//                      {type:'request', id, request, timeoutMs}         an APPROVAL to ask about
//                      {type:'ask', id, request, timeoutMs}             a server's question (sampling,
//                                                                       elicitation) for a person
//                      {type:'cancel', id}                              the call went away (either kind)
//   window → gateway   {type:'welcome', approvers, questions?}          answer to hello; `questions`:
//                                                                       this window takes 'ask'
//                      {type:'approvers', count}                        UI approvers attached/detached
//                      {type:'outcome', id, outcome}                    a request's answer (or timeout…)
//                      {type:'answer', id, result}                      a question's answer (or why none)
//
// 'ask' and 'answer' were added after version 1 without bumping it: a gateway only sends 'ask' to
// a window whose welcome says `questions: true` (an older window would close the connection on it),
// and an older gateway never sends one, so never gets an 'answer'.
//
// There is deliberately no message that *answers* a request or a question from the gateway
// side: see relay-server.ts.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { ApprovalOutcome, ApprovalRequest, AskRequest, AskResult } from './broker';
import { ApprovalKindSchema } from '../../common/host-api-shapes';

/** Bumped when a message changes shape; both sides send/expect it in hello. */
export const RELAY_PROTOCOL_VERSION = '1';
/** A longer line closes the connection (it cannot be a legitimate message). */
export const RELAY_MAX_LINE_BYTES = 1024 * 1024;
/**
 * What the window holds for remote gateways (relay-server.ts): waiting requests and questions,
 * and the bytes of their lines, per connection and in all. Chosen so that a person never faces
 * more cards than they can read (16 per gateway; a real gateway waits on one per agent call in
 * flight) and the window's memory for them stays a few MiB whatever the peers send.
 */
export interface RelayLimits {
  perConnectionPending: number;
  perConnectionBytes: number;
  totalPending: number;
  totalBytes: number;
  maxConnections: number;
}
export const RELAY_LIMITS: RelayLimits = {
  perConnectionPending: 16,
  perConnectionBytes: 1024 * 1024,
  totalPending: 64,
  totalBytes: 4 * 1024 * 1024,
  maxConnections: 32,
};
/** Kept for older callers: the per-connection count. */
export const RELAY_MAX_PENDING = RELAY_LIMITS.perConnectionPending;
export const RELAY_QUEUE_FULL_REASON = 'relay queue full';

/** The reason a refused request's call is denied with. */
export function relayLimitReason(limit: string): string {
  return `${RELAY_QUEUE_FULL_REASON}: the Gatehouse window refused this request (limit ${limit}); retry when earlier approvals are answered`;
}

const id = z.string().min(1).max(128);
const shortText = z.string().max(1024);


export const RelayedRequestSchema = z
  .object({
    tool: z.string().min(1).max(1024),
    advertisedName: shortText.optional(),
    server: shortText,
    /** Already redacted by the gateway: this is what the person is shown. */
    args: z.unknown(),
    annotations: z.record(z.string(), z.unknown()).optional(),
    reason: z.string().max(8192),
    rule: shortText.optional(),
    kind: ApprovalKindSchema,
    agentSession: shortText.optional(),
    exchange: shortText.optional(),
    fingerprint: z.string().max(256).optional(),
    /** Each call needs a person: no grant answers it, none is made from it (ApprovalRequest.perCall). */
    perCall: z.literal(true).optional(),
    /** The gateway's own launch session (the window labels the request by connection instead). */
    session: shortText,
  })
  .strict();
export type RelayedRequest = z.infer<typeof RelayedRequestSchema>;

/**
 * A question for a person (ApprovalBroker.ask): the request fields, a question kind, and the
 * server's `elicitation/create` or `sampling/createMessage` params, redacted by the gateway.
 */
export const RelayedAskSchema = RelayedRequestSchema.extend({
  kind: z.enum(['sampling', 'elicitation']),
  question: z.record(z.string(), z.unknown()),
  triggerTool: shortText.optional(),
}).strict();
export type RelayedAsk = z.infer<typeof RelayedAskSchema>;

const timeoutMs = z.number().int().positive().max(2 ** 31 - 1);

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), pid: z.number().int().nonnegative(), profile: shortText, version: z.string().max(64) }).strict(),
  z.object({ type: z.literal('request'), id, request: RelayedRequestSchema, timeoutMs }).strict(),
  z.object({ type: z.literal('ask'), id, request: RelayedAskSchema, timeoutMs }).strict(),
  z.object({ type: z.literal('cancel'), id }).strict(),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

export const ApprovalOutcomeSchema = z.object({
  approved: z.boolean(),
  how: z.enum(['once', 'session', 'tool_session', 'grant', 'denied', 'timeout', 'no_approver', 'cancelled']),
  by: z.string().max(256).optional(),
  reason: z.string().max(8192),
});

/** ApprovalBroker.ask's result: the protocol result the server gets, or why there is none. */
export const AskResultSchema = z.union([
  z.object({ answered: z.literal(true), by: z.string().max(256), content: z.record(z.string(), z.unknown()) }),
  z.object({
    answered: z.literal(false),
    how: z.enum(['declined', 'cancelled', 'timeout', 'no_approver']),
    by: z.string().max(256).optional(),
    reason: z.string().max(8192),
  }),
]);

// Server messages are not strict: an older gateway should still understand a newer window.
export const ServerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('welcome'), approvers: z.number().int().nonnegative(), questions: z.boolean().optional() }),
  z.object({ type: z.literal('approvers'), count: z.number().int().nonnegative() }),
  z.object({ type: z.literal('outcome'), id, outcome: ApprovalOutcomeSchema }),
  z.object({ type: z.literal('answer'), id, result: AskResultSchema }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

/** What the gateway sends for one broker request (drops nothing a person needs to see). */
export function toRelayedRequest(req: ApprovalRequest): RelayedRequest {
  const out: RelayedRequest = { tool: req.tool, server: req.server, args: req.args, reason: req.reason, kind: req.kind ?? 'tool', session: req.session };
  if (req.advertisedName !== undefined) out.advertisedName = req.advertisedName;
  if (req.annotations !== undefined) out.annotations = { ...req.annotations };
  if (req.rule !== undefined) out.rule = req.rule;
  if (req.agentSession !== undefined) out.agentSession = req.agentSession;
  if (req.exchange !== undefined) out.exchange = req.exchange;
  if (req.fingerprint !== undefined) out.fingerprint = req.fingerprint;
  if (req.perCall) out.perCall = true;
  return out;
}

/** What the gateway sends for one broker question: the request, its kind and the (redacted) question. */
export function toRelayedAsk(req: AskRequest): RelayedAsk {
  const question = typeof req.question === 'object' && req.question !== null && !Array.isArray(req.question) ? (req.question as Record<string, unknown>) : {};
  const out: RelayedAsk = { ...toRelayedRequest(req), kind: req.kind, question };
  if (req.triggerTool !== undefined) out.triggerTool = req.triggerTool;
  return out;
}

export function toAskResult(r: z.infer<typeof AskResultSchema>): AskResult {
  if (r.answered) return { answered: true, by: r.by, content: r.content };
  return r.by === undefined ? { answered: false, how: r.how, reason: r.reason } : { answered: false, how: r.how, by: r.by, reason: r.reason };
}

export function toOutcome(o: z.infer<typeof ApprovalOutcomeSchema>): ApprovalOutcome {
  return o.by === undefined ? { approved: o.approved, how: o.how, reason: o.reason } : { approved: o.approved, how: o.how, by: o.by, reason: o.reason };
}

/** Where the window of this data directory listens. */
export function relaySocketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    const hash = createHash('sha256').update(path.win32.resolve(dataDir).toLowerCase()).digest('hex').slice(0, 16);
    return `\\\\.\\pipe\\gatehouse-approvals-${hash}`;
  }
  return path.join(path.resolve(dataDir), 'approvals.sock');
}

/**
 * Splits a byte stream into lines, bounded: a line longer than `maxBytes` (newline not yet
 * seen) is an error, so a peer cannot make us buffer without limit.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes = RELAY_MAX_LINE_BYTES) {}

  /** Returns the complete lines in `chunk`, or 'overflow'. */
  push(chunk: Buffer): string[] | 'overflow' {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxBytes) return 'overflow';
      const line = this.size === 0 ? piece.toString('utf8') : Buffer.concat([...this.parts, piece]).toString('utf8');
      this.parts = [];
      this.size = 0;
      lines.push(line.replace(/\r$/, ''));
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.size + rest.length > this.maxBytes) return 'overflow';
      this.parts.push(Buffer.from(rest));
      this.size += rest.length;
    }
    return lines;
  }
}

/** Parses one line with a schema; undefined when it is not JSON or does not match. */
export function parseLine<T>(schema: z.ZodType<T>, line: string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = schema.safeParse(value);
  return r.success ? r.data : undefined;
}
