// The wire and journal format between the host's audit writer and its writer thread
// (threaded-writer.ts → writer-thread.ts), and of the crash journal (journal.ts). One chunk is
// one string: the calls the host made on its AuditWriter since the previous chunk, in order.
//
// A traffic row's message text is carried as it is, never escaped into another JSON string:
// the text the tap kept (json-text.ts) goes from the protocol path to the disk as the same
// characters, serialised once. Layout:
//   {"c":<chunk>,"run":"<run>","n":<ops>}\n       header
//   ["<op>",arg,arg?]\n                            one line per call …
//   ["t",<row without message>,<text length>]\n<text>\n   … or a traffic row and its text
//   {"end":<chunk>}\n                              trailer: a chunk without it was cut short
// JSON.stringify never emits a raw newline, so the lines split cleanly; the text is taken by
// its length (UTF-16 units), so a message with newlines in it (a pretty-printed HTTP body)
// cannot break the framing.
import { attachJsonText, messageJsonText } from '../protocol/json-text';
import type { StderrLine, TrafficEvent } from '../protocol/types';
import type { AgentSessionStart, DecisionRecord, Ending, ExchangeRecord, ServerRunEnd, ServerRunStart, ServerStateChange, SessionStart } from './types';
import type { AuditWriter } from './writer';

/** One call on the writer, as it travels. */
export type WriterOp =
  | ['session', SessionStart]
  | ['sessionEnd', string, Ending?]
  | ['agent', AgentSessionStart]
  | ['agentEnd', string, Ending?]
  | ['runStart', ServerRunStart]
  | ['runEnd', ServerRunEnd]
  | ['state', ServerStateChange]
  | ['decision', DecisionRecord]
  | ['exchange', ExchangeRecord]
  | ['stderr', StderrLine]
  | ['t', TrafficEvent]
  /** Rows the host dropped before they were sent (its own bound): session, stream, count, first, last. */
  | ['dropped', string, 'messages' | 'stderr_lines', number, number, number];

export interface Chunk {
  chunk: number;
  run: string;
  ops: WriterOp[];
}

/** Encodes one call; a traffic row takes its kept text instead of a second JSON.stringify. */
export function encodeOp(op: WriterOp): string {
  let out = '';
  writeOp(op, (piece) => (out += piece));
  return out;
}

/**
 * A traffic row's metadata as JSON: the row without `message`. The message is set aside for the
 * one synchronous stringify and put back (nothing else runs in between); a `{ message, ...meta }`
 * copy of every row, or a replacer function, cost more (Node 20, 300k rows of a stdio call: swap
 * 3.3 s, rest copy 5.3 s, replacer 6.9 s, under the same load). A frozen row takes the copy.
 */
function metaJson(ev: TrafficEvent): string {
  const message = ev.message;
  try {
    (ev as { message: unknown }).message = undefined;
  } catch {
    const { message: _m, ...meta } = ev;
    return JSON.stringify(meta);
  }
  try {
    return JSON.stringify(ev);
  } finally {
    (ev as { message: unknown }).message = message;
  }
}

/**
 * The same bytes as encodeOp, handed to `write` piece by piece (ThreadedWriter encodes each
 * straight into its chunk buffer): the message text is never copied into a line string, and
 * the row's metadata is serialised without a copy of the row (`{ message, ...meta }`).
 */
export function writeOp(op: WriterOp, write: (piece: string) => void): void {
  if (op[0] !== 't') {
    write(JSON.stringify(op));
    write('\n');
    return;
  }
  const ev = op[1];
  const text = ev.message === undefined ? undefined : messageJsonText(ev);
  write('["t",');
  write(metaJson(ev));
  if (text === undefined) {
    write(',-1]\n');
    return;
  }
  write(`,${text.length}]\n`);
  write(text);
  write('\n');
}

export function chunkHeader(chunk: number, run: string, ops: number): string {
  return `${JSON.stringify({ c: chunk, run, n: ops })}\n`;
}

export function chunkTrailer(chunk: number): string {
  return `{"end":${chunk}}\n`;
}

// The worker never needs the message as an object: it stores the text. A placeholder stands in
// for it, with the text attached as the kept serialisation (json-text.ts checks identity).
const STORED_TEXT = Object.freeze({ storedText: true });

/**
 * Decodes every complete chunk in `text` (a message from the host, or a whole journal file).
 * A chunk cut short (the host died while writing it) and anything after it is ignored:
 * `complete` tells whether the text ended on a chunk boundary.
 */
export function decodeChunks(text: string): { chunks: Chunk[]; complete: boolean } {
  const chunks: Chunk[] = [];
  let pos = 0;
  const line = (): string | undefined => {
    const nl = text.indexOf('\n', pos);
    if (nl < 0) return undefined;
    const out = text.slice(pos, nl);
    pos = nl + 1;
    return out;
  };
  while (pos < text.length) {
    const start = pos;
    const head = line();
    if (head === undefined) return { chunks, complete: false };
    let header: { c: number; run: string; n: number };
    try {
      header = JSON.parse(head) as typeof header;
    } catch {
      return { chunks, complete: false };
    }
    const ops: WriterOp[] = [];
    let ok = true;
    for (let i = 0; i < header.n && ok; i++) {
      const l = line();
      if (l === undefined) {
        ok = false;
        break;
      }
      let op: WriterOp;
      try {
        op = JSON.parse(l) as WriterOp;
      } catch {
        ok = false;
        break;
      }
      if (op[0] === 't') {
        const len = (op as unknown as [string, TrafficEvent, number])[2];
        const ev = op[1] as TrafficEvent;
        if (len >= 0) {
          if (pos + len + 1 > text.length || text[pos + len] !== '\n') {
            ok = false;
            break;
          }
          const body = text.slice(pos, pos + len);
          pos += len + 1;
          ev.message = STORED_TEXT;
          attachJsonText(ev, STORED_TEXT, body);
        }
        ops.push(['t', ev]);
      } else {
        ops.push(op);
      }
    }
    const tail = ok ? line() : undefined;
    if (!ok || tail !== chunkTrailer(header.c).slice(0, -1)) {
      pos = start;
      return { chunks, complete: false };
    }
    chunks.push({ chunk: header.c, run: header.run, ops });
  }
  return { chunks, complete: true };
}

/** What applying a chunk needs of a writer (QueuedWriter has all of it). */
export type OpTarget = Pick<
  AuditWriter,
  'beginSession' | 'endSession' | 'agentSessionStarted' | 'agentSessionEnded' | 'serverRunStarted' | 'serverRunEnded' | 'serverState' | 'decision' | 'exchange' | 'stderr' | 'traffic'
> & {
  noteDropped(session: string, stream: 'messages' | 'stderr_lines', dropped: number, firstTs: number, lastTs: number): void;
};

export function applyOp(w: OpTarget, op: WriterOp): void {
  switch (op[0]) {
    case 'session':
      return w.beginSession(op[1]);
    case 'sessionEnd':
      return w.endSession(op[1], op[2] ?? {});
    case 'agent':
      return w.agentSessionStarted(op[1]);
    case 'agentEnd':
      return w.agentSessionEnded(op[1], op[2] ?? {});
    case 'runStart':
      return w.serverRunStarted(op[1]);
    case 'runEnd':
      return w.serverRunEnded(op[1]);
    case 'state':
      return w.serverState(op[1]);
    case 'decision':
      return w.decision(op[1]);
    case 'exchange':
      return w.exchange(op[1]);
    case 'stderr':
      return w.stderr(op[1]);
    case 't':
      return w.traffic(op[1]);
    case 'dropped':
      return w.noteDropped(op[1], op[2], op[3], op[4], op[5]);
  }
}
