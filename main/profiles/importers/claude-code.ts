// Claude Code: project `.mcp.json` (also `~/.claude.json`'s top-level `mcpServers`).
// Checked against Claude Code's MCP docs (code.claude.com/docs/en/mcp, "Environment variable
// expansion in .mcp.json"): `type` is stdio | http | sse; `${VAR}` and `${VAR:-default}` are
// expanded in command, args, env, url and headers. Those become `${env:VAR}` /
// `${env:VAR:-default}`; a bare `$VAR` is not expanded by Claude Code and stays literal.
import { ProfileBuilder, shellVarRef, translateRefs } from './common';
import { baseName, importJsonFamily, peekJson } from './json-family';
import { claudeCodeOAuth, remoteSignsIn } from './oauth';
import type { Importer } from './types';

/** Claude Code keys with no Gatehouse equivalent, with the reason shown to the user. */
const UNSUPPORTED: Record<string, string> = {
  headersHelper: 'a command that prints headers; set the headers with ${secret:…} instead',
};

export function claudeCodeTranslate(b: ProfileBuilder) {
  return (value: string, where: string): string =>
    translateRefs(
      value,
      (body) => (body === 'CLAUDE_PROJECT_DIR' ? '${workspace}' : shellVarRef(body)),
      (token) => b.warn(`${where}: ${token} has no Gatehouse equivalent; kept as literal text`),
    );
}

export const claudeCodeImporter: Importer = {
  format: 'claude-code',
  label: 'Claude Code',
  detect(fileName, text) {
    const base = baseName(fileName);
    if (base === '.mcp.json' || base === '.claude.json') return true;
    const root = peekJson(text, fileName);
    const servers = root?.mcpServers;
    if (!servers || typeof servers !== 'object') return false;
    return Object.values(servers).some((s) => ['stdio', 'http', 'sse'].includes((s as { type?: string } | null)?.type ?? ''));
  },
  importConfig(text, opts) {
    // An entry whose headers come from a headersHelper command authenticates that way, not by OAuth.
    const helped = new Set<string>();
    return importJsonFamily(text, opts, {
      format: 'claude-code',
      // The client signs in to a remote server that answers 401; Gatehouse does the same.
      afterEntry: (d) => !helped.has(d.from) && remoteSignsIn(d),
      label: 'Claude Code',
      container: 'mcpServers',
      // ~/.claude.json holds much else (projects, history...): only the servers are ours.
      ignoreTopLevel: (key) => baseName(opts.fileName) === '.claude.json' || key === 'projects',
      hooks: (b) => ({
        translate: claudeCodeTranslate(b),
        extra(key, value, d, where) {
          if (key === 'oauth') {
            claudeCodeOAuth(b, value, d, where);
            return true;
          }
          const why = UNSUPPORTED[key];
          if (!why) return false;
          if (key === 'headersHelper') helped.add(d.from);
          b.warn(`${where}: not imported (${why})`);
          return true;
        },
      }),
    });
  },
};
