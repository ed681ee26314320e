// The JSON formats share one walk: a top-level map of servers (`mcpServers`, or `servers` for
// VS Code), each entry turned into a draft by json-entry.ts#jsonEntryDraft with the format's own
// `${…}` translation. Top-level keys other than the server map are reported, not guessed at.
import { ImportError, ProfileBuilder, isObject, keyPath, parseJsonc, type ServerDraft } from './common';
import { jsonEntryDraft, type JsonEntryHooks } from './json-entry';
import type { ImportFormat, ImportOptions, ImportResult } from './types';

export interface JsonFamilySpec {
  format: ImportFormat;
  label: string;
  /** The key holding the servers. */
  container: 'mcpServers' | 'servers';
  /** Top-level keys that are expected and silently skipped (the client's other settings). */
  ignoreTopLevel?: (key: string) => boolean;
  hooks(b: ProfileBuilder, root: Record<string, unknown>): JsonEntryHooks;
  /** Runs on each finished entry before it is added (e.g. ./oauth.ts remoteSignsIn). */
  afterEntry?: (draft: ServerDraft) => void;
}

export function importJsonFamily(text: string, opts: ImportOptions, spec: JsonFamilySpec): ImportResult {
  const root = parseJsonc(text, opts.fileName);
  if (!isObject(root)) throw new ImportError(`${opts.fileName}: expected a JSON object at the top level`);
  const servers = root[spec.container];
  if (servers !== undefined && !isObject(servers)) {
    throw new ImportError(`${opts.fileName}: \`${spec.container}\` must be an object of servers by name`);
  }
  const b = new ProfileBuilder(spec.format, spec.label, opts);
  const hooks = spec.hooks(b, root);
  for (const key of Object.keys(root)) {
    if (key === spec.container || key === '$schema' || spec.ignoreTopLevel?.(key)) continue;
    b.warn(`${key}: not an MCP server setting; not imported`);
  }
  for (const [name, entry] of Object.entries(servers ?? {})) {
    const from = keyPath(spec.container, name);
    const draft = jsonEntryDraft(b, name, entry, from, hooks);
    if (draft) spec.afterEntry?.(draft);
    if (draft) b.addServer(draft);
  }
  return b.build();
}

/** The file's base name, lowercased, with `\` normalised for Windows paths. */
export function baseName(fileName: string): string {
  return (fileName.split(/[\\/]/).pop() ?? fileName).toLowerCase();
}

/** The path with forward slashes, for `.cursor/mcp.json`-style checks. */
export function slashPath(fileName: string): string {
  return fileName.replace(/\\/g, '/').toLowerCase();
}

/** Parses for detection only: undefined when the text is not a JSON object. */
export function peekJson(text: string, fileName: string): Record<string, unknown> | undefined {
  try {
    const v = parseJsonc(text, fileName);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
