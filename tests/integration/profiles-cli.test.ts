// `gatehouse profiles …` as a user runs it: the built CLI in a child process, checked by exit
// code, stdout and stderr.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTestBundle, type TestBundle } from '../support/build';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const profilesDir = path.join(root, 'workspace-profiles');

let cli: string;
let bundle: TestBundle;

// A private bundle (tests/support/build.ts), so this test never races a run rewriting out/.
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'profiles-cli-test');
  cli = bundle.entry('cli');
}, 60_000);

afterAll(() => bundle?.cleanup());

let dir: string;
let userDir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-profiles-cli-'));
  userDir = path.join(dir, 'user-profiles');
  fs.mkdirSync(userDir);
  fs.mkdirSync(path.join(dir, 'ws'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function gatehouse(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [cli, 'profiles', ...args], {
    cwd: dir,
    encoding: 'utf8',
    // A clean environment, so the host's secrets or profile folders cannot leak into the result.
    env: { PATH: process.env.PATH, HOME: dir, GATEHOUSE_PROFILES_DIR: userDir, GATEHOUSE_DATA_DIR: path.join(dir, 'data'), ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function write(name: string, lines: string[]): string {
  fs.writeFileSync(path.join(dir, name), `${lines.join('\n')}\n`);
  return name;
}

const BROKEN = ['# yaml-language-server: $schema=./profile.schema.json', 'name: broken', 'workspace: ./ws', 'servers:', '  files:', '    command:', '      - npx', '      - server'];

describe('gatehouse profiles validate', () => {
  it('the shipped demo and example are valid: exit 0, "ok  FILE" on stdout, nothing on stderr', () => {
    const demo = path.join(profilesDir, 'demo.yaml');
    const example = path.join(profilesDir, 'examples', 'everything.yaml');
    const r = gatehouse(['validate', demo, example]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`ok  ${demo}\nok  ${example}\n`);
    expect(r.code).toBe(0);
  });

  it('a broken profile: exit 1 and file:line:col path: message on stderr', () => {
    const good = write('good.yaml', ['workspace: ./ws']);
    const bad = write('broken.yaml', BROKEN);
    const r = gatehouse(['validate', good, bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('ok  good.yaml\n');
    expect(r.stderr).toBe('broken.yaml:7:7 servers.files.command: expected a string, got a list\n');
  });

  it('a name is looked up in the profile folders', () => {
    fs.writeFileSync(path.join(userDir, 'mine.yaml'), 'workspace: .\n');
    const r = gatehouse(['validate', 'mine', 'nosuch']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`ok  ${path.join(userDir, 'mine.yaml')}\n`);
    expect(r.stderr).toMatch(/^nosuch: no profile named 'nosuch' \(available: .*demo.*mine/);
  });

  it('--resolve also checks secrets and env, without printing secret values', () => {
    const f = write('secret.yaml', ['workspace: ./ws', 'servers:', '  a:', '    command: x', '    env: { A: "${secret:HAVE_IT}", B: "${secret:FILES_KEY}" }']);
    expect(gatehouse(['validate', f]).code).toBe(0);
    const r = gatehouse(['validate', '--resolve', f], { HAVE_IT: 'value-of-the-secret' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "secret.yaml:5:40 servers.a.env.B: secret FILES_KEY is not set (looked in the secret store (gatehouse secrets set FILES_KEY) or environment variable GATEHOUSE_SECRET_FILES_KEY or FILES_KEY)\n",
    );
    expect(r.stderr + r.stdout).not.toContain('value-of-the-secret');
    expect(gatehouse(['validate', '--resolve', f], { HAVE_IT: 'value-of-the-secret', GATEHOUSE_SECRET_FILES_KEY: 'k-1234' }).code).toBe(0);
  });

  it('usage errors exit 2', () => {
    const none = gatehouse(['validate']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^gatehouse profiles: validate needs at least one FILE\nusage:/);
    expect(gatehouse(['validate', '--frobnicate', 'x.yaml']).code).toBe(2);
    expect(gatehouse(['frobnicate']).stderr).toMatch(/unknown subcommand 'frobnicate'/);
    expect(gatehouse([]).code).toBe(2);
  });
});

describe('gatehouse profiles list', () => {
  it('prints a table with invalid profiles marked, and JSON with --json', () => {
    fs.writeFileSync(path.join(userDir, 'broken.yaml'), `${BROKEN.join('\n')}\n`);
    const r = gatehouse(['list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SERVERS\s+SURFACE\s+POLICY\s+FILE$/);
    expect(lines.find((l) => l.startsWith('demo '))).toMatch(/^demo\s+workspace,files,memory\s+friendly\s+approve\s+\S+demo\.yaml$/);
    expect(lines.find((l) => l.startsWith('broken '))).toMatch(/^broken\s+INVALID\s+-\s+-\s+\S+broken\.yaml$/);
    expect(r.stderr).toContain('servers.files.command: expected a string, got a list');

    const j = gatehouse(['list', '--json']);
    expect(j.code).toBe(0);
    const entries = JSON.parse(j.stdout) as { name: string; error?: string; servers: string[] }[];
    expect(entries.find((e) => e.name === 'demo')).toMatchObject({ servers: ['workspace', 'files', 'memory'], toolSurface: 'friendly' });
    expect(entries.find((e) => e.name === 'broken')?.error).toMatch(/broken\.yaml:7:7 servers\.files\.command: expected a string, got a list/);
  });
});

describe('gatehouse profiles schema', () => {
  it('prints the JSON Schema that ships in workspace-profiles/', () => {
    const r = gatehouse(['schema']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(fs.readFileSync(path.join(profilesDir, 'profile.schema.json'), 'utf8'));
  });
});
