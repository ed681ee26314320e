import { buildTestBundle, type TestBundle } from '../support/build';
// `gatehouse profiles import` as a user runs it: the built CLI in a child process with its own
// HOME and profiles folder, checked by exit code, stdout and stderr.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { repoRoot } from '../support/supervisor';

// A private bundle (tests/support/build.ts), so this test never races a run rewriting out/cli.mjs.
let bundle: TestBundle;
let cli: string;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'import-cli-test');
  cli = bundle.entry('cli');
}, 60_000);
afterAll(() => bundle.cleanup());

let tmp: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-import-cli-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  env = { PATH: process.env.PATH, HOME: path.join(tmp, 'home'), GATEHOUSE_PROFILES_DIR: path.join(tmp, 'profiles') };
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const fixture = (rel: string) => path.join(repoRoot, 'tests', 'fixtures', 'client-configs', rel);
// --no-install: these tests read what the import writes and says. Installing the configs' npx
// packages would go to the registry (each run waited ~14 s here for a refused download, and more
// under load); installing has its own test (tests/integration/imports-run.test.ts).
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli, ...args, ...(args[0] === 'profiles' && args[1] === 'import' ? ['--no-install'] : [])], { env, cwd: tmp, encoding: 'utf8', timeout: 20_000 });

it('prints the written path on stdout, warnings and secret names on stderr, never a value', () => {
  const r = run('profiles', 'import', fixture('claude_desktop_config.json'));
  expect(r.status).toBe(0);
  const file = path.join(tmp, 'profiles', 'claude-desktop.yaml');
  expect(r.stdout).toBe(`${file}\n`);
  expect(r.stderr).toContain('imported 4 servers (filesystem, github, brave-search, openai-helper)');
  expect(r.stderr).toMatch(/warning: mcpServers\["Brave Search"\]: imported as server "brave-search"/);
  expect(r.stderr).toContain('GATEHOUSE_SECRET_GITHUB_PERSONAL_ACCESS_TOKEN');
  for (const out of [r.stdout, r.stderr, fs.readFileSync(file, 'utf8')]) {
    expect(out).not.toContain('ghp_FAKEfake0123456789FAKEfake0123456789');
    expect(out).not.toContain('sk-proj-FAKEfake0123456789FAKEfake');
  }
  // The written profile passes the CLI's own validation.
  const v = run('profiles', 'validate', file);
  expect(v.status).toBe(0);
});

it('imports Codex TOML with --out, --name and --format', () => {
  const out = path.join(tmp, 'codex-profile.yaml');
  const r = run('profiles', 'import', fixture('codex/config.toml'), '--out', out, '--name', 'codex-tools', '--format', 'codex');
  expect(r.status).toBe(0);
  expect(r.stdout).toBe(`${out}\n`);
  expect(fs.readFileSync(out, 'utf8')).toMatch(/^name: codex-tools$/m);
  expect(fs.readFileSync(out, 'utf8')).not.toContain('sk-FAKEshellmcp0123456789abcdef');
});

it('exits 1 when the target exists (until --force) or the input is unusable', () => {
  expect(run('profiles', 'import', fixture('cursor-project/.cursor/mcp.json')).status).toBe(0);
  const again = run('profiles', 'import', fixture('cursor-project/.cursor/mcp.json'));
  expect(again.status).toBe(1);
  expect(again.stderr).toMatch(/already exists; pass --force/);
  expect(again.stdout).toBe('');
  expect(run('profiles', 'import', fixture('cursor-project/.cursor/mcp.json'), '--force').status).toBe(0);

  const missing = run('profiles', 'import', path.join(tmp, 'nope.json'));
  expect(missing.status).toBe(1);
  expect(missing.stderr).toMatch(/no such file/);
  fs.writeFileSync(path.join(tmp, 'odd.json'), '{"something": "else"}');
  const odd = run('profiles', 'import', path.join(tmp, 'odd.json'));
  expect(odd.status).toBe(1);
  expect(odd.stderr).toMatch(/cannot tell which client .* pass --format/);
});

it('exits 2 on usage errors', () => {
  expect(run('profiles', 'import').status).toBe(2);
  expect(run('profiles', 'import', 'a', 'b').status).toBe(2);
  const bad = run('profiles', 'import', fixture('claude-code/.mcp.json'), '--format', 'notepad');
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/unknown --format 'notepad'/);
});
