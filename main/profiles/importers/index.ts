// Import an existing MCP client configuration into a workspace profile
// (`gatehouse profiles import`, the app's Import button). One module per format; this file
// picks the format, writes the YAML and proves it loads.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundledProfilesDir, userProfilesDir } from '../../paths';
import { loadProfileText } from '../loader';
import { PROFILE_NAME_RE } from '../schema';
import { claudeCodeImporter } from './claude-code';
import { claudeDesktopImporter } from './claude-desktop';
import { codexImporter } from './codex';
import { ImportError } from './common';
import { cursorImporter } from './cursor';
import { geminiImporter } from './gemini';
import { slashPath } from './json-family';
import { renderProfileYaml } from './render';
import { IMPORT_FORMATS, type ImportFormat, type ImportOptions, type ImportResult, type ImportedSecret, type Importer } from './types';
import { vscodeImporter } from './vscode';

export { ImportError } from './common';
export { renderProfileYaml } from './render';
export { IMPORT_FORMATS, type ImportFormat, type ImportOptions, type ImportResult, type ImportedSecret, type Importer } from './types';

/**
 * Detection order: most specific first. File names decide most cases; content hints
 * (`servers` → VS Code, `httpUrl` → Gemini, `${env:` → Cursor, `type` → Claude Code) the rest,
 * and a bare `mcpServers` file is read the most literal way (Claude Desktop).
 */
export const IMPORTERS: readonly Importer[] = [codexImporter, vscodeImporter, geminiImporter, cursorImporter, claudeCodeImporter, claudeDesktopImporter];

export function importerFor(format: ImportFormat): Importer {
  const imp = IMPORTERS.find((i) => i.format === format);
  if (!imp) throw new Error(`unknown format '${format}' (expected ${IMPORT_FORMATS.join(', ')})`);
  return imp;
}

export function detectFormat(fileName: string, text: string): ImportFormat | undefined {
  // The file name is the strongest hint: claude_desktop_config.json is Claude Desktop even though
  // an earlier importer's content check might also match it.
  if (/claude_desktop_config\.json$/i.test(fileName)) return 'claude-desktop';
  return IMPORTERS.find((i) => i.detect(fileName, text))?.format;
}

export function importConfigText(text: string, opts: ImportOptions & { format?: ImportFormat }): ImportResult {
  const format = opts.format ?? detectFormat(opts.fileName, text);
  if (!format) {
    throw new ImportError(`${opts.fileName}: cannot tell which client this configuration is for; pass --format ${IMPORT_FORMATS.join('|')}`);
  }
  return importerFor(format).importConfig(text, opts);
}

export interface ImportFileOptions {
  /** Where to write; default `<userProfilesDir>/<name>.yaml`. */
  out?: string;
  /** Profile name; default the format's name (`claude-code`), or --out's file name. */
  name?: string;
  format?: ImportFormat;
  /** Overwrite an existing file. */
  force?: boolean;
  /** `workspace:`; default the project folder of a project-level config, else `.`. */
  workspace?: string;
  env?: NodeJS.ProcessEnv;
  now?: Date;
}

export interface ImportFileResult {
  /** Absolute path of the written profile. */
  file: string;
  name: string;
  format: ImportFormat;
  servers: string[];
  warnings: string[];
  secrets: ImportedSecret[];
}

/** Reads, converts, writes and validates. Throws ImportError for anything the user can fix. */
export function importFile(source: string, opts: ImportFileOptions = {}): ImportFileResult {
  const env = opts.env ?? process.env;
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ImportError(`${source}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message}`);
  }
  const format = opts.format ?? detectFormat(source, text);
  if (!format) throw new ImportError(`${source}: cannot tell which client this configuration is for; pass --format ${IMPORT_FORMATS.join('|')}`);

  const name = opts.name ?? (opts.out ? path.basename(opts.out).replace(/\.ya?ml$/i, '') : format);
  if (!PROFILE_NAME_RE.test(name)) {
    throw new ImportError(`'${name}' is not a profile name (lowercase letters, digits, '_' and '-', starting with a letter or digit); pass --name`);
  }
  const out = path.resolve(opts.out ?? path.join(userProfilesDir(env), `${name}.yaml`));
  if (existsSync(out) && !opts.force) throw new ImportError(`${out} already exists; pass --force to overwrite it`);

  const workspace = opts.workspace ?? projectDir(path.resolve(source), format, env);
  const result = importerFor(format).importConfig(text, { fileName: source, profileName: opts.name, workspace });
  const yaml = renderProfileYaml(result, {
    source: path.resolve(source),
    label: importerFor(format).label,
    date: opts.now ?? new Date(),
    schemaFile: path.join(bundledProfilesDir(), 'profile.schema.json'),
  });
  // What we write must load: a profile Gatehouse itself produced and then refuses is a bug here.
  const loaded = loadProfileText(yaml, out);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, yaml);
  return { file: out, name: loaded.name, format, servers: Object.keys(result.profile.servers ?? {}), warnings: result.warnings, secrets: result.secrets };
}

/**
 * The project a project-level config belongs to (`<p>/.mcp.json`, `<p>/.vscode/mcp.json`,
 * `<p>/.cursor/mcp.json`, `<p>/.gemini/settings.json`, `<p>/.codex/config.toml`), so that
 * `${workspaceFolder}` keeps meaning that folder. User-level configs (in the home folder, Claude
 * Desktop's) have no project: the workspace stays `.`, the profile's own folder.
 */
function projectDir(abs: string, format: ImportFormat, env: NodeJS.ProcessEnv): string | undefined {
  const home = path.resolve(env.HOME || os.homedir());
  const p = slashPath(abs);
  let dir: string | undefined;
  if (format === 'claude-code' && path.basename(abs) === '.mcp.json') dir = path.dirname(abs);
  else if (/\/\.(vscode|cursor|gemini|codex)\/[^/]+$/.test(p)) dir = path.dirname(path.dirname(abs));
  if (!dir || dir === home) return undefined;
  if (format === 'codex' && env.CODEX_HOME && path.resolve(env.CODEX_HOME) === path.dirname(abs)) return undefined;
  return dir;
}
