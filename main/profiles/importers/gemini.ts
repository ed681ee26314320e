// Gemini CLI: `~/.gemini/settings.json` or `<project>/.gemini/settings.json`, `mcpServers`.
// Checked against google-gemini/gemini-cli docs/tools/mcp-server.md and docs/cli/configuration.md:
// stdio entries have command/args/env/cwd; `httpUrl` is a Streamable HTTP endpoint and `url` an
// SSE one, both with `headers`; `timeout` is in milliseconds; `includeTools`/`excludeTools`
// filter tools (excludeTools wins); `trust: true` skips Gemini's confirmations. String values
// may reference environment variables as `$VAR` or `${VAR}`.
import { shellVarRef, translateRefs } from './common';
import { baseName, importJsonFamily, peekJson, slashPath } from './json-family';
import type { Importer } from './types';

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

export const geminiImporter: Importer = {
  format: 'gemini',
  label: 'Gemini CLI',
  detect(fileName, text) {
    if (/(^|\/)\.gemini\/settings\.json$/.test(slashPath(fileName))) return true;
    const root = peekJson(text, fileName);
    const servers = root?.mcpServers;
    if (!servers || typeof servers !== 'object') return false;
    return baseName(fileName) === 'settings.json' || Object.values(servers).some((s) => typeof (s as { httpUrl?: unknown } | null)?.httpUrl === 'string');
  },
  importConfig(text, opts) {
    return importJsonFamily(text, opts, {
      format: 'gemini',
      label: 'Gemini CLI',
      container: 'mcpServers',
      // settings.json holds every other Gemini setting too (theme, model, mcp allow-lists...).
      ignoreTopLevel: () => true,
      hooks: (b) => {
        const translate = (value: string, where: string) =>
          translateRefs(value, shellVarRef, (token) => b.warn(`${where}: ${token} has no Gatehouse equivalent; kept as literal text`), {
            bareDollar: true,
          });
        return {
          translate,
          extra(key, value, d, where) {
            switch (key) {
              case 'httpUrl':
                if (typeof value === 'string') {
                  d.url = translate(value, where);
                  d.transport = 'streamable-http';
                }
                return true;
              case 'url':
                if (typeof value !== 'string') return true;
                if (d.transport === 'streamable-http') b.warn(`${where}: ignored, the entry also has httpUrl`);
                else {
                  d.url = translate(value, where);
                  d.transport = 'sse';
                }
                return true;
              case 'timeout':
                if (typeof value === 'number' && value > 0) d.requestTimeoutS = value / 1000;
                return true;
              case 'includeTools':
                d.enabledTools = strings(value);
                d.toolListKeys = { enabled: 'includeTools', disabled: 'excludeTools' };
                return true;
              case 'excludeTools':
                d.disabledTools = strings(value);
                d.toolListKeys = { enabled: 'includeTools', disabled: 'excludeTools' };
                return true;
              case 'trust':
                if (value === true) b.warn(`${where}: not imported (Gatehouse's policy decides which calls need approval)`);
                return true;
              default:
                return false;
            }
          },
        };
      },
    });
  },
};
