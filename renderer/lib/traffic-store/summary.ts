// The one-line summary of a row: what a person scanning the timeline needs to recognise it
// (tool name, log text, progress `3/6`, error message, resource URI…). Computed lazily and cached
// on the row, so ingesting thousands of events per second never stringifies a message.
import { isObject } from '../../../common/is-object';
import type { TrafficRow } from './types';

const MAX = 240;

export type Obj = Record<string, unknown>;
/** A JSON object (not an array, not null): what the store reads messages through. */
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

export function rowSummary(row: TrafficRow): string {
  if (row._summary === undefined) row._summary = clip(computeSummary(row));
  return row._summary;
}

/** Called by the store when what a summary depends on changed (pair, tool, progress). */
export function invalidateSummary(row: TrafficRow): void {
  row._rev++;
  row._summary = undefined;
  row._text = undefined;
}

function computeSummary(row: TrafficRow): string {
  const { ev } = row;
  const msg = isObject(ev.message) ? ev.message : {};
  if (ev.kind === 'fault') return `${ev.fault ?? 'protocol fault'}: ${compact(msg.raw)}`;
  if (row.synthetic) {
    // The row stands for an exchange none of whose messages is held: its body is the exchange's record.
    const name = str(msg.advertised) ?? str(msg.tool) ?? ev.method ?? '?';
    const why = str(msg.reason) ?? (row.status === 'error' ? row.error : undefined);
    return `${row.tool && row.tool !== name ? `${name} (${row.tool})` : name}${why ? ` → ${why}` : ''}`;
  }
  if (ev.kind === 'response' || ev.kind === 'error') {
    // A row of its own only when unmatched.
    return `unmatched response: ${row.brief ?? resultText(msg) ?? compact(msg.result ?? msg.error)}`;
  }
  const params = isObject(msg.params) ? msg.params : {};
  // A live row's message is in the host: its summary pieces were taken on arrival (body-shed.ts).
  let text = row.brief === undefined ? methodSummary(ev.method ?? '', params, row) : ev.method === 'tools/call' ? `${toolLabel(params, row)} ${row.brief}` : row.brief;
  if (row.progress && ev.kind === 'request') text = `${progressText(row.progress)} · ${text}`;
  if (row.pair && row.status === 'error' && row.error) text += ` → ${row.error}`;
  else if (row.pair && row.status === 'ok') {
    const out = row.outText ?? resultText(isObject(row.pair.ev.message) ? row.pair.ev.message : {});
    if (out && ev.method === 'tools/call') text += ` → ${out}`;
  }
  return text;
}

export function progressText(p: { done: number; total?: number; message?: string }): string {
  const n = `${fmtNum(p.done)}${p.total !== undefined ? `/${fmtNum(p.total)}` : ''}`;
  return p.message ? `${n} ${p.message}` : n;
}

function fmtNum(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** `read_file (fs.read)`: the advertised name, and the canonical tool once known. */
function toolLabel(p: Obj, row: TrafficRow): string {
  const name = str(p.name) ?? '?';
  return row.tool && row.tool !== name && row.tool.replace(/\./g, '_') !== name ? `${name} (${row.tool})` : name;
}

export function methodSummary(method: string, p: Obj, row: TrafficRow): string {
  switch (method) {
    case 'tools/call':
      return `${toolLabel(p, row)} ${compact(p.arguments ?? {})}`;
    case 'notifications/progress':
      return progressText({ done: Number(p.progress ?? 0), total: typeof p.total === 'number' ? p.total : undefined, message: str(p.message) });
    case 'notifications/message': {
      const data = typeof p.data === 'string' ? p.data : compact(p.data);
      return `[${str(p.level) ?? 'log'}]${p.logger ? ` ${str(p.logger)}:` : ''} ${data}`;
    }
    case 'notifications/cancelled':
      return `cancel #${str(p.requestId) ?? '?'}${p.reason ? `: ${str(p.reason)}` : ''}`;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
    case 'notifications/resources/updated':
      return str(p.uri) ?? '';
    case 'prompts/get':
      return `${str(p.name) ?? '?'} ${p.arguments ? compact(p.arguments) : ''}`;
    case 'initialize': {
      const info = isObject(p.clientInfo) ? p.clientInfo : {};
      return `${str(info.name) ?? 'client'} ${str(info.version) ?? ''} · protocol ${str(p.protocolVersion) ?? '?'}`;
    }
    case 'sampling/createMessage': {
      const msgs = Array.isArray(p.messages) ? p.messages : [];
      const last = msgs[msgs.length - 1];
      const content = isObject(last) && isObject(last.content) ? str(last.content.text) : undefined;
      return `${content ?? `${msgs.length} message(s)`}${p.maxTokens ? ` · max ${str(p.maxTokens)} tokens` : ''}`;
    }
    case 'elicitation/create':
      return str(p.message) ?? compact(p);
    case 'completion/complete': {
      const arg = isObject(p.argument) ? p.argument : {};
      return `${str(arg.name) ?? ''}=${str(arg.value) ?? ''}`;
    }
    case 'logging/setLevel':
      return str(p.level) ?? '';
    default:
      return Object.keys(p).length ? compact(p) : '';
  }
}

/** The text of a tool result or a JSON-RPC error, if it has one. */
export function resultText(msg: Obj): string | undefined {
  if (isObject(msg.error)) return `${str(msg.error.message) ?? 'error'}${msg.error.code !== undefined ? ` (${str(msg.error.code)})` : ''}`;
  const r = msg.result;
  if (!isObject(r)) return undefined;
  if (Array.isArray(r.content)) {
    for (const c of r.content) if (isObject(c) && typeof c.text === 'string') return c.text;
    const first = r.content[0];
    if (isObject(first)) return `[${str(first.type) ?? 'content'}]`;
  }
  if (Array.isArray(r.tools)) return `${r.tools.length} tools`;
  if (Array.isArray(r.resources)) return `${r.resources.length} resources`;
  if (Array.isArray(r.prompts)) return `${r.prompts.length} prompts`;
  if (Array.isArray(r.contents)) return `${r.contents.length} content(s)`;
  if (isObject(r.serverInfo)) return `${str(r.serverInfo.name) ?? 'server'} ${str(r.serverInfo.version) ?? ''} · protocol ${str(r.protocolVersion) ?? '?'}`;
  return undefined;
}

/** Compact one-line JSON, cut early so a huge message never costs a full stringify twice. */
export function compact(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  let s: string;
  try {
    s = JSON.stringify(v) ?? '';
  } catch {
    s = String(v);
  }
  return s.length > MAX ? `${s.slice(0, MAX)}…` : s;
}

function clip(s: string): string {
  return clipWords(s.replace(/\s+/g, ' ').trim(), MAX);
}

/**
 * At most `max` characters, cut at the last word boundary when one is near (a reason reads
 * "…review it in the…", never "…review it in the Ser…"); a long unbroken token is cut where it must be.
 */
export function clipWords(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${space >= max * 0.6 ? cut.slice(0, space).trimEnd() : cut}…`;
}
