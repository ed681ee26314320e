// `gatehouse secrets …` and `gatehouse auth …` as a user runs them: the built CLI in a child
// process against the local authorization server and protected MCP server. Secret values go in
// through stdin only and never come out: not on stdout, not on stderr, not in the store file.
// Each test runs several CLI processes: their limits are generous for a loaded machine.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestBundle, type TestBundle } from '../support/build';
import { startOAuthServers, type OAuthServers } from '../support/oauth-servers';
import { tempDir } from '../support/temp';

let bundle: TestBundle;
let cli: string;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'auth-cli-test');
  cli = bundle.entry('cli');
}, 60_000);
afterAll(() => bundle?.cleanup());

let tmp: ReturnType<typeof tempDir>;
let servers: OAuthServers;
beforeEach(async () => {
  tmp = tempDir('gatehouse-auth-cli-');
  servers = await startOAuthServers();
});
afterEach(async () => {
  await servers.close();
  tmp.cleanup();
});

function gatehouse(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: tmp.dir,
    env: { ...process.env, GATEHOUSE_DATA_DIR: path.join(tmp.dir, 'data'), GATEHOUSE_PROFILES_DIR: path.join(tmp.dir, 'profiles'), GATEHOUSE_SECRET_STORE: 'file' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

function dataText(): string {
  const dir = path.join(tmp.dir, 'data');
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((n) => path.join(dir, n))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f).toString('latin1'))
    .join('\n');
}

describe('gatehouse secrets', () => {
  it('set reads stdin (never argv), list shows names only, ${secret:NAME} resolves from the store, delete removes it', async () => {
    const value = 'sk-live-0123456789abcdefSECRET';
    const set = await gatehouse(['secrets', 'set', 'API_KEY'], `${value}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toMatch(/stored API_KEY in encrypted file .*\$\{secret:API_KEY\}/);
    expect(set.stderr).toMatch(/warning: GATEHOUSE_SECRET_STORE=file/);
    const argv = await gatehouse(['secrets', 'set', 'API_KEY', 'value-on-the-command-line']);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/read from stdin, never from the command line/);
    const list = await gatehouse(['secrets', 'list']);
    expect(list.stdout).toBe('API_KEY\n');

    // A profile that uses it: validate --resolve sees the value, and prints it redacted.
    mkdirSync(path.join(tmp.dir, 'ws'));
    writeFileSync(
      path.join(tmp.dir, 'p.yaml'),
      `name: p\nworkspace: ./ws\nservers:\n  api:\n    url: https://api.example.com/mcp\n    headers:\n      X-Api-Key: \${secret:API_KEY}\n`,
    );
    const resolved = await gatehouse(['profiles', 'validate', '--resolve', path.join(tmp.dir, 'p.yaml')]);
    expect(resolved.code, resolved.stderr).toBe(0);
    for (const out of [set, argv, list, resolved]) expect(out.stdout + out.stderr).not.toContain(value);
    expect(dataText()).not.toContain(value);

    const del = await gatehouse(['secrets', 'delete', 'API_KEY']);
    expect(del.code).toBe(0);
    const missing = await gatehouse(['profiles', 'validate', '--resolve', path.join(tmp.dir, 'p.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/API_KEY/);
  }, 180_000);
});

describe('gatehouse auth', () => {
  const profile = () => {
    mkdirSync(path.join(tmp.dir, 'ws'), { recursive: true });
    const file = path.join(tmp.dir, 'remote.yaml');
    writeFileSync(file, `name: remote\nworkspace: ./ws\nservers:\n  remote:\n    url: ${servers.mcpUrl}\n    auth: oauth\n  local:\n    command: node\n`);
    return file;
  };

  it('login --headless, status, logout for a profile server; nothing secret printed', async () => {
    const file = profile();
    const before = await gatehouse(['auth', 'status', '--profile', file]);
    expect(before.stdout).toMatch(/^remote\tsigned-out/);
    const login = await gatehouse(['auth', 'login', '--headless', '--profile', file, '--server', 'remote']);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(new RegExp(`signed in to remote \\(issuer ${servers.asUrl}\\)`));
    const status = await gatehouse(['auth', 'status', '--profile', file, '--server', 'remote']);
    expect(status.stdout).toMatch(new RegExp(`^remote\\tsigned-in\\tissuer ${servers.asUrl}, token until .* \\(refreshable\\)`));
    const notOauth = await gatehouse(['auth', 'login', '--profile', file, '--server', 'local']);
    expect(notOauth.code).toBe(1);
    expect(notOauth.stderr).toMatch(/does not use `auth: oauth`/);
    const logout = await gatehouse(['auth', 'logout', '--profile', file, '--server', 'remote']);
    expect(logout.stderr).toMatch(/signed out of remote/);
    const after = await gatehouse(['auth', 'status', '--profile', file]);
    expect(after.stdout).toMatch(/^remote\tsigned-out/);
    const printed = [before, login, status, logout, after].map((r) => r.stdout + r.stderr).join('\n');
    for (const s of servers.issuedSecrets()) {
      expect(printed).not.toContain(s);
      expect(dataText()).not.toContain(s);
    }
  }, 180_000);

  it('check --headless URL: signs in, lists and calls the tools that need no arguments, refreshes; exit 0', async () => {
    const r = await gatehouse(['auth', 'check', '--headless', servers.mcpUrl]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/tools: admin, whoami, echo/);
    expect(r.stderr).toMatch(/called whoami: ok/);
    expect(r.stderr).not.toMatch(/called echo/); // echo needs an argument
    expect(r.stderr).toMatch(/ok: 3 tools, 1 called, 1 sign-in\(s\), refresh used/);
    expect(servers.counts.refreshes).toBe(1);
    for (const s of servers.issuedSecrets()) expect(r.stdout + r.stderr).not.toContain(s);
    // Nothing kept: check uses memory unless --keep.
    const status = await gatehouse(['secrets', 'list']);
    expect(status.stdout).toBe('');
  }, 120_000);

  it('check fails (exit 1) when the authorization server wants a person and --headless cannot follow', async () => {
    const bad = await startOAuthServers({ issInRedirect: 'wrong' });
    try {
      const r = await gatehouse(['auth', 'check', '--headless', bad.mcpUrl]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/RFC 9207/);
    } finally {
      await bad.close();
    }
  }, 120_000);
});
