// Claude Desktop: `claude_desktop_config.json`, `mcpServers` of command/args/env.
// Checked against the MCP quickstart for Claude Desktop and client guides (e.g.
// https://playwright.dev/mcp/clients/claude-desktop): stdio entries only, no `${…}` expansion,
// so a `${` in a value is a literal and is kept as one. Newer builds also accept remote entries
// with `type`/`url`/`headers`, imported like Claude Code's.
import { baseName, importJsonFamily, peekJson } from './json-family';
import type { Importer } from './types';

export const claudeDesktopImporter: Importer = {
  format: 'claude-desktop',
  label: 'Claude Desktop',
  detect(fileName, text) {
    if (baseName(fileName) === 'claude_desktop_config.json') return true;
    // The fallback for a bare `mcpServers` file: the most literal reading, nothing expanded.
    const root = peekJson(text, fileName);
    return !!root && typeof root.mcpServers === 'object';
  },
  importConfig(text, opts) {
    return importJsonFamily(text, opts, {
      format: 'claude-desktop',
      label: 'Claude Desktop',
      container: 'mcpServers',
      // The rest of the file is app settings (globalShortcut, preferences...).
      ignoreTopLevel: () => true,
      hooks: (b) => ({
        translate(value, where) {
          if (value.includes('${')) b.warn(`${where}: Claude Desktop does not expand \${…}; kept as literal text`);
          return value.replace(/\$\{/g, () => '$${');
        },
      }),
    });
  },
};
