// `gatehouse profiles list [--json] | validate [--resolve] FILE... | schema | import FILE`
// Exit codes (as in ./index.ts): 0 ok, 1 a profile is invalid, 2 usage error.
// Results go to stdout; problems go to stderr, so `validate` stays scriptable.
import { parseArgs } from 'node:util';
import { dataDir } from '../paths';
import { profileJsonSchemaText } from '../profiles/json-schema';
import { loadProfileFile, ProfileError } from '../profiles/loader';
import { findProfile, isProfilePath, listProfiles, type ProfileEntry } from '../profiles/registry';
import { resolveProfile } from '../profiles/resolve';
import { StoreSecretProvider } from '../auth/store-provider';
import { openSecretStore, type SecretStore } from '../auth/secret-store';

const USAGE = `usage:
  gatehouse profiles list [--json]                 profiles in the bundled and user folders
  gatehouse profiles validate [--resolve] FILE...  check profiles (names work too); --resolve also
                                                   expands \${env:…}/\${secret:…} and checks the workspace
  gatehouse profiles schema                        print the profile JSON Schema
  gatehouse profiles import FILE [--out FILE] [--name NAME] [--force] [--no-install]
        [--format claude-desktop|claude-code|vscode|cursor|codex|gemini] [--workspace DIR]
                                                   turn an MCP client's configuration into a
                                                   profile; prints the written path
`;

class UsageError extends Error {}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    switch (sub) {
      case 'list':
        return list(rest);
      case 'validate':
        return validate(rest);
      case 'import':
        return await importCommand(rest);
      case 'schema':
        parse(rest, {});
        process.stdout.write(profileJsonSchemaText());
        return 0;
      case '--help':
      case '-h':
      case 'help':
        process.stderr.write(USAGE);
        return 0;
      default:
        throw new UsageError(sub ? `unknown subcommand '${sub}'` : 'missing subcommand');
    }
  } catch (err) {
    if (err instanceof UsageError || isParseArgsError(err)) {
      process.stderr.write(`gatehouse profiles: ${(err as Error).message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }
}

function list(args: string[]): number {
  const { values } = parse(args, { json: { type: 'boolean' } });
  const entries = listProfiles();
  if (values.json) {
    process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    return 0;
  }
  if (entries.length === 0) {
    process.stderr.write('no profiles found\n');
    return 0;
  }
  const rows = entries.map(row);
  const header = ['NAME', 'SERVERS', 'SURFACE', 'POLICY', 'FILE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  process.stdout.write(`${[header, ...rows].map(line).join('\n')}\n`);
  const invalid = entries.filter((e) => e.error);
  for (const e of invalid) process.stderr.write(`\n${e.name} is invalid:\n${indent(e.error ?? '')}\n`);
  return 0;
}

function row(e: ProfileEntry): string[] {
  const name = e.shadowed ? `${e.name} (shadowed)` : e.name;
  if (e.error !== undefined) return [name, 'INVALID', '-', '-', e.file];
  return [name, e.servers.join(',') || '-', e.toolSurface, e.policyDefault, e.file];
}

async function importCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    { out: { type: 'string', short: 'o' }, name: { type: 'string' }, format: { type: 'string' }, workspace: { type: 'string' }, force: { type: 'boolean' }, 'no-install': { type: 'boolean' } },
    true,
  );
  if (positionals.length !== 1) throw new UsageError(positionals.length ? 'import takes one FILE' : 'import needs a FILE');
  // Loaded here, not at the top: `profiles list` need not pay for the TOML parser.
  const { IMPORT_FORMATS, ImportError, importFile } = await import('../profiles/importers/index');
  const format = values.format;
  if (format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`unknown --format '${format}' (expected ${IMPORT_FORMATS.join(', ')})`);
  }
  try {
    const r = importFile(positionals[0]!, {
      out: values.out,
      name: values.name,
      format: format as (typeof IMPORT_FORMATS)[number] | undefined,
      workspace: values.workspace,
      force: values.force,
    });
    // Quarantined (docs/trust.md): no pins carry over to the imported profile; each server asks first.
    const { openCliTrustStore, cliActor } = await import('./trust-store');
    const trust = openCliTrustStore(dataDir(process.env));
    try {
      trust.store.forget(r.name, cliActor(), 'quarantined');
    } finally {
      trust.close();
    }
    process.stdout.write(`${r.file}\n`);
    process.stderr.write(`imported ${r.servers.length} server${r.servers.length === 1 ? '' : 's'} (${r.servers.join(', ') || 'none'}) from ${positionals[0]} as ${r.format}\n`);
    for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
    if (r.secrets.length) {
      process.stderr.write('secrets to set before launching (values were not copied):\n');
      for (const s of r.secrets) process.stderr.write(`  GATEHOUSE_SECRET_${s.name}  (${s.from}${s.kind === 'clear-text' ? ', was in clear text' : ''})\n`);
    }
    // Package launchers are installed now, while the network is at hand (docs/packages.md).
    if (!values['no-install']) await installImportedPackages(r.file);
    return 0;
  } catch (err) {
    if (err instanceof ImportError) {
      process.stderr.write(`gatehouse profiles import: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

function validate(args: string[]): number {
  const { values, positionals } = parse(args, { resolve: { type: 'boolean' } }, true);
  if (positionals.length === 0) throw new UsageError('validate needs at least one FILE');
  let failed = 0;
  // `${secret:…}` resolves as a launch would: the secret store first, then the environment.
  let store: SecretStore | undefined;
  const secrets = new StoreSecretProvider(() => (store ??= openSecretStore({ dataDir: dataDir() })));
  for (const ref of positionals) {
    try {
      // A bare name is looked up like --profile; a path is used as given so messages show it.
      const byPath = isProfilePath(ref);
      const file = byPath ? ref : findProfile(ref);
      const loaded = loadProfileFile(file);
      // The same default workspace a launch would use (host.ts resolve).
      if (values.resolve) resolveProfile(loaded, { dataDir: dataDir(), defaultWorkspace: byPath ? 'cwd' : 'profile-folder', secrets });
      process.stdout.write(`ok  ${file}\n`);
    } catch (err) {
      failed++;
      if (err instanceof ProfileError) process.stderr.write(`${err.message}\n`);
      else process.stderr.write(`${ref}: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

function parse<O extends Options>(args: string[], options: O, allowPositionals = false) {
  return parseArgs({ args, options, allowPositionals, strict: true });
}

function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/** Each enabled server of a just-imported profile that runs through npx/uvx/… gets its package into the cache. */
async function installImportedPackages(file: string): Promise<void> {
  const { parseLauncher } = await import('../packages/launchers');
  const { ensurePackage } = await import('../packages/prepare-packages');
  const { launchSearchPath } = await import('../trust/program-identity');
  const raw = loadProfileFile(file).raw;
  const searchPath = await launchSearchPath(process.env);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const jobs = Object.entries(raw.servers).map(async ([id, s]) => {
    if (!('command' in s) || s.disabled || [s.command, ...s.args].some((a) => a.includes('${'))) return;
    const req = parseLauncher(s.command, s.args);
    if (!req) return;
    const got = await ensurePackage(id, req, { searchPath, cwd: process.cwd() }, { env: process.env, searchPath, log });
    if (typeof got === 'string') log(`warning: ${id}: ${got}; it will not start until it can be installed`);
  });
  await Promise.all(jobs);
}
