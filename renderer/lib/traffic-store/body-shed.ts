// Memory per held row (docs/ui-layout.md "Traffic's memory and render path"): a live row keeps its fields, not its message. The body stays
// in the host (the tap's ring, then the audit store) and is fetched when shown (bodies.ts).
// What the row still needs from its message — the summary's pieces, what linking reads on a
// rebuild (ids, progress token, error) — is taken here, as small fresh strings, before the
// message is let go; the message is replaced by a stub that holds only that.
import { isObject } from '../../../common/is-object';
import { clipWords, compact, invalidateSummary, methodSummary, resultText, type Obj } from './summary';
import type { TrafficEvent, TrafficRow } from './types';


const MAX = 240;
const OK_STUB = Object.freeze({ result: Object.freeze({}) });
const EMPTY_STUB = Object.freeze({});
const EMPTY_PARAMS = Object.freeze({ params: Object.freeze({}) });

/**
 * A copy that shares no memory with the message: V8 keeps a slice (or a concatenation) of a
 * long string pointing into it, which would keep the whole body alive through its summary.
 */
function detach(s: string): string {
  return s.length > 12 ? (JSON.parse(JSON.stringify(s)) as string) : s;
}

const clipped = (s: string, max = MAX): string => detach(clipWords(s, max));
/** A call's result text in its summary: what a row's width shows, not a copy of the result. */
const OUT_MAX = 120;

/** One string per distinct value among the fields that repeat on every row (sessions, directions…). */
export class Interner {
  private readonly map = new Map<string, string>();
  private readonly stubs = new Map<string, unknown>();

  get(s: string): string {
    const known = this.map.get(s);
    if (known !== undefined) return known;
    // Bounded: a flood of distinct values only costs the sharing, never memory.
    if (this.map.size > 50_000) this.map.clear();
    this.map.set(s, s);
    return s;
  }

  /** The event's repeating fields replaced by their shared copies (in place: the store owns it). */
  event(ev: TrafficEvent): void {
    const e = ev as { -readonly [K in keyof TrafficEvent]: TrafficEvent[K] };
    e.session = this.get(e.session);
    e.direction = this.get(e.direction) as TrafficEvent['direction'];
    e.kind = this.get(e.kind) as TrafficEvent['kind'];
    if (e.agentSession !== undefined) e.agentSession = this.get(e.agentSession);
    if (e.server !== undefined) e.server = this.get(e.server);
    if (e.method !== undefined) e.method = this.get(e.method);
    if (e.tool !== undefined) e.tool = this.get(e.tool);
    if (e.decision !== undefined) e.decision = this.get(e.decision) as TrafficEvent['decision'];
    // One per call, but on each of its four or so messages.
    if (e.exchange !== undefined) e.exchange = this.get(e.exchange);
  }

  /** A request's stub without a progress token: one per tool name. */
  stub(name: string): unknown {
    let stub = this.stubs.get(name);
    if (!stub) {
      if (this.stubs.size > 10_000) this.stubs.clear();
      stub = Object.freeze({ params: Object.freeze({ name }) });
      this.stubs.set(name, stub);
    }
    return stub;
  }
}

export type ShedFields = Pick<TrafficRow, 'remote' | 'brief' | 'outText'>;

/** What rows whose message already went took from it, by seq (for a rebuild from their events). */
export function carryShed(rows: Iterable<TrafficRow>): Map<number, ShedFields> {
  const out = new Map<number, ShedFields>();
  for (const r of rows) {
    if (!r.remote) continue;
    const kept: ShedFields = { remote: true };
    if (r.brief !== undefined) kept.brief = r.brief;
    if (r.outText !== undefined) kept.outText = r.outText;
    out.set(r.seq, kept);
  }
  return out;
}

/** Whether a live event's body is let go (faults, synthetic rows and loaded history keep theirs). */
export function shedsBody(ev: TrafficEvent): boolean {
  return ev.kind !== 'fault' && ev.message !== undefined && Number.isInteger(ev.seq);
}

/** The message's JSON, lower-cased, for a text search while the body is still here. */
export function bodyText(ev: TrafficEvent): string {
  try {
    return (JSON.stringify(ev.message) ?? '').toLowerCase();
  } catch {
    return '';
  }
}

/**
 * Takes what the row needs from its message, then replaces the message with a stub. Summary
 * pieces are shared when equal (a call's two hops usually carry the same arguments and result).
 */
export function shedBody(row: TrafficRow, strings: Interner): void {
  const ev = row.ev;
  const msg = isObject(ev.message) ? ev.message : {};
  const params = isObject(msg.params) ? msg.params : {};
  if (ev.kind === 'request' || ev.kind === 'notification') {
    // tools/call: the arguments only (the label takes the tool name as it becomes known).
    row.brief = strings.get(clipped(ev.method === 'tools/call' ? compact(params.arguments ?? {}) : methodSummary(ev.method ?? '', params, row)));
  } else if (row.merged && row.pair) {
    const out = resultText(msg);
    if (out !== undefined && row.pair.ev.method === 'tools/call') {
      row.pair.outText = strings.get(clipped(out, OUT_MAX));
      invalidateSummary(row.pair);
    }
  } else {
    row.brief = clipped(resultText(msg) ?? compact(msg.result ?? msg.error));
  }
  row.remote = true;
  (ev as { message: unknown }).message = stubOf(ev, msg, params, strings);
}

function stubOf(ev: TrafficEvent, msg: Obj, params: Obj, strings: Interner): unknown {
  switch (ev.kind) {
    case 'request': {
      const token = isObject(params._meta) ? params._meta.progressToken : undefined;
      const name = typeof params.name === 'string' ? strings.get(params.name) : undefined;
      if (typeof token !== 'string' && typeof token !== 'number') return name === undefined ? EMPTY_PARAMS : strings.stub(name);
      return { params: { ...(name !== undefined ? { name } : {}), _meta: { progressToken: token } } };
    }
    case 'notification': {
      if (ev.method === 'notifications/progress') {
        const { progressToken, progress, total, message } = params;
        return { params: { progressToken, progress, total, message: typeof message === 'string' ? clipped(message) : undefined } };
      }
      if (ev.method === 'notifications/cancelled') return { params: { requestId: params.requestId } };
      return EMPTY_STUB;
    }
    default: {
      if (isObject(msg.error)) {
        return { error: { message: typeof msg.error.message === 'string' ? clipped(msg.error.message) : 'error', code: msg.error.code } };
      }
      if (isObject(msg.result) && msg.result.isError === true) {
        const content = Array.isArray(msg.result.content) ? msg.result.content : [];
        const text = content.find((c): c is Obj => isObject(c) && typeof c.text === 'string');
        return { result: { isError: true, content: [{ type: 'text', text: text ? clipped(String(text.text)) : 'tool error' }] } };
      }
      return OK_STUB;
    }
  }
}
