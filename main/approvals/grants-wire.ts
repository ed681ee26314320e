// The grants control socket's wire (docs/agents.md, "Session grants from a terminal"): how
// `gatehouse grants list|revoke` reaches the session grants of a running host (`gatehouse serve`,
// `gatehouse launch`, the desktop app). Newline-delimited JSON over `<dataDir>/grants.sock` (a
// named pipe on Windows), every line validated with zod on both sides:
//
//   terminal → host   {verb:'list'}                 every session grant, oldest first
//                     {verb:'revoke', id}           forget one (later calls it covered ask again)
//                     {verb:'revoke', all:true}     forget every one
//   host → terminal   {ok:true, grants:[…]}         the answer to list
//                     {ok:true, revoked:[…]}        what revoke forgot (empty: no such grant)
//                     {ok:false, error}             refused (then the host closes the connection)
//
// Exactly two verbs, and both only take power away or show it: there is deliberately no verb that
// grants anything or answers an approval (grants-control.ts says why that matters).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { SessionGrantSchema, type SessionGrant } from '../../common/host-api-shapes';
import { LineSplitter, parseLine } from './relay-wire';

/** A request line is a few dozen bytes; anything near this is not one. */
export const GRANTS_MAX_LINE_BYTES = 4096;

const grantId = z.string().min(1).max(128);

export const GrantsRequestSchema = z.union([
  z.object({ verb: z.literal('list') }).strict(),
  z.object({ verb: z.literal('revoke'), id: grantId }).strict(),
  z.object({ verb: z.literal('revoke'), all: z.literal(true) }).strict(),
]);
export type GrantsRequest = z.infer<typeof GrantsRequestSchema>;

export const GrantsResponseSchema = z.union([
  z.object({ ok: z.literal(true), grants: z.array(SessionGrantSchema) }).strict(),
  z.object({ ok: z.literal(true), revoked: z.array(SessionGrantSchema) }).strict(),
  z.object({ ok: z.literal(false), error: z.string().max(2048) }).strict(),
]);
export type GrantsResponse = z.infer<typeof GrantsResponseSchema>;

/** Where the host of this data directory listens for `gatehouse grants`. */
export function grantsSocketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    const hash = createHash('sha256').update(path.win32.resolve(dataDir).toLowerCase()).digest('hex').slice(0, 16);
    return `\\\\.\\pipe\\gatehouse-grants-${hash}`;
  }
  return path.join(path.resolve(dataDir), 'grants.sock');
}

export type GrantsReply = { reply: GrantsResponse } | { noHost: string } | { error: string };

/**
 * Asks the host listening on `socketPath` one question. `noHost` when nothing answers there (no
 * socket, a stale one); `error` when something answered that is not a Gatehouse host of ours.
 */
export function askGrants(socketPath: string, request: GrantsRequest, opts: { timeoutMs?: number } = {}): Promise<GrantsReply> {
  const windows = process.platform === 'win32';
  if (!windows) {
    // A socket another user put here could play the host; ours is owned by us (socket-file.ts).
    let st: fs.Stats;
    try {
      st = fs.lstatSync(socketPath);
    } catch {
      return Promise.resolve({ noHost: `no ${socketPath}` });
    }
    if (!st.isSocket()) return Promise.resolve({ error: `${socketPath} is not a socket` });
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return Promise.resolve({ error: `${socketPath} belongs to uid ${st.uid}, not to you` });
  }
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const lines = new LineSplitter(1024 * 1024);
    let settled = false;
    const done = (r: GrantsReply) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(opts.timeoutMs ?? 10_000, () => done({ error: `the host on ${socketPath} did not answer` }));
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: Buffer) => {
      const got = lines.push(chunk);
      if (got === 'overflow') return done({ error: 'the host sent a line too long to be an answer' });
      const line = got.find((l) => l.trim() !== '');
      if (line === undefined) return;
      const reply = parseLine(GrantsResponseSchema, line);
      done(reply ? { reply } : { error: `the host on ${socketPath} answered something that is not a grants answer` });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') done({ noHost: `nothing answers on ${socketPath}` });
      else done({ error: `cannot reach ${socketPath}: ${err.message}` });
    });
    socket.on('close', () => done({ error: `the host on ${socketPath} closed the connection without an answer` }));
  });
}

export type { SessionGrant };
