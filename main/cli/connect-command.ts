// `gatehouse connect --profile P --client C [--url URL] [--write [--yes]]`: prints the
// configuration that points an MCP client at the gateway for a profile; with --write, shows the
// change to the client's own file as a unified diff and writes it after confirmation, keeping
// the previous file as a backup (FILE.bak is the first and is never replaced; later ones are
// FILE.bak.2, …). Exit codes: 0 ok, 1 failure or declined, 2 usage error.
// The configuration (or the diff) goes to stdout; notes and the question go to stderr.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import {
  CLIENTS,
  GatewayUrlRequired,
  MergeError,
  clientConfig,
  mergeClientConfig,
  unifiedDiff,
  type ClientId,
} from '../agents/client-configs';
import { backUp } from '../agents/config-backup';
import { loadProfileFile, ProfileError, type LoadedProfile } from '../profiles/loader';
import { resolveProfile } from '../profiles/resolve';
import { dataDir as defaultDataDir } from '../paths';
import { findProfile, isProfilePath } from '../profiles/registry';
import { openSecretStore } from '../auth/secret-store';
import { AGENT_NAME_RE, mintAgentToken } from '../gateway/agent-tokens';

const USAGE = `usage: gatehouse connect --profile NAME|FILE --client ${CLIENTS.join('|')}
                         [--transport http|stdio] [--url http://127.0.0.1:PORT/mcp] [--token-env NAME]
                         [--agent NAME] [--data-dir DIR] [--project-dir DIR] [--write [--yes]]
  Prints the configuration that points the client at Gatehouse's gateway for the profile:
  the HTTP endpoint (with --url) where the client supports it, else \`gatehouse gateway\` over stdio.
  The window's Connect view shows the same text for the same choice.
  --transport  http (needs --url) or stdio; default http when --url is given and the client speaks it
  --data-dir   the data directory a stdio gateway uses (written into the args, with the profiles
               folder as --profiles-dir, for clients that pass no environment: Codex, the MCP
               Inspector); default GATEHOUSE_DATA_DIR or the usual one
  --project-dir  where project-scoped files go (Claude Code's .mcp.json, VS Code's .vscode/mcp.json);
               default the profile's workspace, as in the window's Connect view
  --agent      mint (or reuse) a token for this agent alone: its calls show as NAME in Traffic,
               approvals and the audit, and policy rules with \`agents: [NAME]\` match them (HTTP only)
  --write      show the change to the client's configuration file and write it (asks first;
               --yes for scripts). Comments and other entries are kept; FILE.bak keeps the original.`;

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        profile: { type: 'string', short: 'p' },
        client: { type: 'string', short: 'c' },
        url: { type: 'string' },
        'token-env': { type: 'string' },
        agent: { type: 'string' },
        transport: { type: 'string' },
        'data-dir': { type: 'string' },
        'project-dir': { type: 'string' },
        write: { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.help) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  if (!values.profile) return usage('--profile is required');
  if (!values.client) return usage('--client is required');
  if (!(CLIENTS as readonly string[]).includes(values.client)) return usage(`unknown client '${values.client}'`);
  const client = values.client as ClientId;
  if (values.url !== undefined && !/^https?:\/\/[^/\s]+/.test(values.url)) return usage(`--url must be an http(s) URL, got '${values.url}'`);
  const agent = values.agent;
  if (agent !== undefined && !AGENT_NAME_RE.test(agent)) return usage(`--agent must be 1-64 of A-Z a-z 0-9 _ . - starting with a letter or digit, got '${agent}'`);
  if (agent !== undefined && (values.url === undefined || values.transport === 'stdio')) return usage('--agent needs the HTTP endpoint (--url): a per-agent token is what tells the agent apart there');
  const tokenEnv = values['token-env'] ?? (agent !== undefined ? `GATEHOUSE_TOKEN_${agent.toUpperCase().replace(/[^A-Z0-9]/g, '_')}` : undefined);
  if (tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) return usage(`--token-env must be an environment variable name, got '${tokenEnv}'`);
  if (values.yes && !values.write) return usage('--yes only makes sense with --write');
  const transport = values.transport;
  if (transport !== undefined && transport !== 'http' && transport !== 'stdio') return usage(`--transport must be http or stdio, got '${transport}'`);

  let profile;
  let byPath = false;
  try {
    const ref = values.profile;
    byPath = isProfilePath(ref);
    const file = byPath ? ref : findProfile(ref);
    profile = loadProfileFile(file);
  } catch (err) {
    process.stderr.write(`${err instanceof ProfileError ? err.message : `gatehouse connect: ${(err as Error).message}`}\n`);
    return 1;
  }

  let cfg;
  try {
    const cwd = values['project-dir'] ? path.resolve(values['project-dir']) : workspaceOf(profile, byPath, values['data-dir']);
    cfg = clientConfig(client, { profileName: profile.name, profileFile: profile.absFile, url: values.url, tokenEnv, transport, dataDir: values['data-dir'], cwd });
  } catch (err) {
    if (err instanceof GatewayUrlRequired || (err instanceof Error && /cannot connect over HTTP/.test(err.message))) {
      process.stderr.write(`gatehouse connect: ${err.message}\n`);
      return 1;
    }
    throw err;
  }

  if (agent !== undefined) {
    let token: string;
    try {
      token = mintAgentToken(openSecretStore({ dataDir: values['data-dir'] ?? defaultDataDir() }), profile.absFile, agent);
    } catch (err) {
      process.stderr.write(`gatehouse connect: cannot keep agent ${agent}'s token: ${(err as Error).message}\n`);
      return 1;
    }
    // The token goes to the person, on stderr, never into the file written below.
    process.stderr.write(`agent ${agent}: its token is kept in Gatehouse's secret store; give it to the client as ${tokenEnv}:\n  export ${tokenEnv}=${token}\n`);
  }

  if (!values.write) {
    process.stdout.write(cfg.text);
    process.stderr.write(`\n${cfg.label} (${cfg.transport}): this goes in ${cfg.where}\n${cfg.notes.map((n) => `  - ${n}`).join('\n')}\n`);
    return 0;
  }

  const target = cfg.where;
  const existed = existsSync(target);
  let existing: string | undefined;
  let merged;
  try {
    existing = existed ? readFileSync(target, 'utf8') : undefined;
    merged = mergeClientConfig(cfg, existing);
  } catch (err) {
    process.stderr.write(`gatehouse connect: ${err instanceof MergeError ? err.message : `cannot read ${target}: ${(err as Error).message}`}\n`);
    return 1;
  }
  if (existing === merged.text) {
    process.stderr.write(`${target} already points ${cfg.label} at Gatehouse for '${profile.name}'; nothing to change\n`);
    return 0;
  }
  process.stdout.write(unifiedDiff(existing ?? '', merged.text, existed ? target : '/dev/null', target));
  for (const n of [...merged.notes, ...cfg.notes]) process.stderr.write(`  - ${n}\n`);

  if (!values.yes && !(await confirm(`${existed ? 'Change' : 'Create'} ${target}? [y/N] `))) {
    process.stderr.write('nothing written\n');
    return 1;
  }
  let backup: string | undefined;
  try {
    mkdirSync(path.dirname(target), { recursive: true });
    backup = existed ? backUp(target) : undefined;
    writeFileSync(target, merged.text);
  } catch (err) {
    process.stderr.write(`gatehouse connect: cannot write ${target}: ${(err as Error).message}\n`);
    return 1;
  }
  process.stderr.write(`wrote ${target}${backup ? ` (the previous version is ${backup})` : ''}\n`);
  return 0;
}

/**
 * The folder a launch of this profile works in (main/profiles/resolve.ts decides it): the
 * project-scoped files go there. A profile that does not resolve here (a `${secret:…}` not set in
 * this shell) still has a plain `workspace:` path, else its default.
 */
function workspaceOf(profile: LoadedProfile, byPath: boolean, dataDir: string | undefined): string {
  const defaultWorkspace = byPath ? 'cwd' : 'profile-folder';
  try {
    return resolveProfile(profile, { dataDir: dataDir ?? defaultDataDir(), defaultWorkspace }).workspace;
  } catch {
    const w = profile.raw.workspace;
    if (w !== undefined && !w.includes('${')) return path.resolve(path.dirname(profile.absFile), w);
    return defaultWorkspace === 'cwd' || w !== undefined ? process.cwd() : path.dirname(profile.absFile);
  }
}

function usage(message: string): number {
  process.stderr.write(`gatehouse connect: ${message}\n${USAGE}\n`);
  return 2;
}

/** One line from stdin (a terminal or a pipe); end of input counts as "no". */
function confirm(question: string): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
    let answered = false;
    process.stderr.write(question);
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(/^\s*y(es)?\s*$/i.test(line));
    });
    rl.once('close', () => {
      if (!answered) resolve(false);
    });
  });
}
