// Cursor: `~/.cursor/mcp.json` or `<project>/.cursor/mcp.json`, `mcpServers` with
// command/args/env or url/headers (Cursor's MCP docs, "Configuration interpolation"):
// `${env:NAME}` is kept as is (Gatehouse has the same form), `${workspaceFolder}` becomes
// `${workspace}`, `${userHome}` becomes `${env:HOME}`. `envFile` has no equivalent.
import { envColonRef, translateRefs, type ProfileBuilder } from './common';
import { importJsonFamily, peekJson, slashPath } from './json-family';
import type { Importer } from './types';

export function editorRefs(b: ProfileBuilder, extra?: (body: string) => string | undefined) {
  return (value: string, where: string): string =>
    translateRefs(
      value,
      (body) => {
        if (body === 'workspaceFolder' || body === 'workspaceRoot') return '${workspace}';
        if (body === 'userHome') return '${env:HOME}';
        if (body === 'pathSeparator' || body === '/') return '/';
        return extra?.(body) ?? envColonRef(body);
      },
      (token) => b.warn(`${where}: ${token} has no Gatehouse equivalent; kept as literal text`),
    );
}

export const cursorImporter: Importer = {
  format: 'cursor',
  label: 'Cursor',
  detect(fileName, text) {
    if (/(^|\/)\.cursor\/mcp\.json$/.test(slashPath(fileName))) return true;
    const root = peekJson(text, fileName);
    return !!root && typeof root.mcpServers === 'object' && /\$\{(env:|workspaceFolder\}|userHome\})/.test(text);
  },
  importConfig(text, opts) {
    return importJsonFamily(text, opts, {
      format: 'cursor',
      label: 'Cursor',
      container: 'mcpServers',
      hooks: (b) => ({
        translate: editorRefs(b),
        extra(key, _value, _d, where) {
          if (key !== 'envFile') return false;
          b.warn(`${where}: not imported (Gatehouse does not read env files; list the variables under env or inherit_env)`);
          return true;
        },
      }),
    });
  },
};
