// One entry of a JSON-family client config (Claude Desktop / Code, Cursor, VS Code, Gemini):
// the keys they share turned into a server draft, with hooks for each client's own keys.
import { isObject, type ProfileBuilder, type ServerDraft } from './common';
export interface JsonEntryHooks {
  /** Source string → Gatehouse syntax (per format). */
  translate(value: string, where: string): string;
  /**
   * Format-specific keys: return true when handled. Called before the common keys, so a
   * format can claim `url` (Gemini's url is SSE) or `type`.
   */
  extra?(key: string, value: unknown, draft: ServerDraft, where: string): boolean;
}

const COMMON_KEYS = new Set(['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'description', 'disabled', 'enabled']);

/**
 * One `mcpServers` / `servers` entry of the JSON formats (Claude Desktop, Claude Code, Cursor,
 * VS Code, Gemini CLI share command/args/env and url/headers). Anything else is a warning.
 */
export function jsonEntryDraft(b: ProfileBuilder, name: string, entry: unknown, from: string, hooks: JsonEntryHooks): ServerDraft | undefined {
  if (!isObject(entry)) {
    b.warn(`${from}: expected an object, got ${Array.isArray(entry) ? 'an array' : typeof entry}; skipped`);
    return undefined;
  }
  const d: ServerDraft = { name, from };
  const str = (v: unknown, key: string): string | undefined => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    b.warn(`${from}.${key}: expected a string, got ${JSON.stringify(v)}; dropped`);
    return undefined;
  };
  const strMap = (v: unknown, key: string): Record<string, string> | undefined => {
    if (!isObject(v)) {
      b.warn(`${from}.${key}: expected an object; dropped`);
      return undefined;
    }
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      const s = str(x, `${key}.${k}`);
      if (s !== undefined) out[k] = hooks.translate(s, `${from}.${key}.${k}`);
    }
    return out;
  };

  let type: string | undefined;
  for (const [key, value] of Object.entries(entry)) {
    const where = `${from}.${key}`;
    if (hooks.extra?.(key, value, d, where)) continue;
    if (!COMMON_KEYS.has(key)) {
      b.warn(`${where}: not supported by Gatehouse profiles; dropped`);
      continue;
    }
    switch (key) {
      case 'type':
        type = typeof value === 'string' ? value : undefined;
        break;
      case 'command': {
        const s = str(value, key);
        if (s !== undefined) d.command = hooks.translate(s, where);
        break;
      }
      case 'args':
        if (Array.isArray(value)) {
          d.args = value.flatMap((a, i) => {
            const s = str(a, `args[${i}]`);
            return s === undefined ? [] : [hooks.translate(s, `${where}[${i}]`)];
          });
        } else b.warn(`${where}: expected an array of strings; dropped`);
        break;
      case 'env':
        d.env = strMap(value, key);
        break;
      case 'headers':
        d.headers = strMap(value, key);
        break;
      case 'cwd': {
        const s = str(value, key);
        if (s !== undefined) d.cwd = hooks.translate(s, where);
        break;
      }
      case 'url': {
        const s = str(value, key);
        if (s !== undefined) d.url = hooks.translate(s, where);
        break;
      }
      case 'description':
        if (typeof value === 'string') d.description = value;
        break;
      case 'disabled':
        if (value === true) d.disabled = true;
        break;
      case 'enabled':
        if (value === false) d.disabled = true;
        break;
    }
  }

  if (type !== undefined) {
    const t = type.toLowerCase();
    if (t === 'http' || t === 'streamable-http' || t === 'streamablehttp' || t === 'streamable_http') d.transport = 'streamable-http';
    else if (t === 'sse') d.transport = 'sse';
    else if (t !== 'stdio') b.warn(`${from}.type: unknown transport '${type}'; guessed from the other keys`);
    if (t === 'stdio' && d.command === undefined) {
      b.warn(`${from}: type is stdio but there is no command; skipped`);
      return undefined;
    }
    if (t !== 'stdio' && d.url === undefined && d.command === undefined) {
      b.warn(`${from}: type is ${type} but there is no url; skipped`);
      return undefined;
    }
  }
  return finishDraft(b, d, from, type);
}

/** Decides stdio vs http when both or neither are present. */
export function finishDraft(b: ProfileBuilder, d: ServerDraft, from: string, type?: string): ServerDraft | undefined {
  const wantsHttp = type !== undefined && type.toLowerCase() !== 'stdio';
  if (d.command !== undefined && d.url !== undefined) {
    if (wantsHttp) {
      b.warn(`${from}.command: ignored, the entry is a ${type} server at its url`);
      d.command = undefined;
    } else {
      b.warn(`${from}.url: ignored, the entry starts a command`);
      d.url = undefined;
    }
  }
  if (d.command === undefined && d.url === undefined) {
    b.warn(`${from}: neither a command nor a url; skipped`);
    return undefined;
  }
  if (d.command !== undefined) {
    if (d.headers && Object.keys(d.headers).length) b.warn(`${from}.headers: a stdio server has no headers; dropped`);
    d.headers = undefined;
  } else {
    if (d.args?.length) b.warn(`${from}.args: an HTTP server has no args; dropped`);
    if (d.env && Object.keys(d.env).length) b.warn(`${from}.env: an HTTP server has no env; dropped`);
    if (d.cwd !== undefined) b.warn(`${from}.cwd: an HTTP server has no cwd; dropped`);
    d.args = d.env = d.cwd = undefined;
  }
  return d;
}
