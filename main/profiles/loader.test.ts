import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProfileFile, loadProfileText, ProfileError, type ProfileIssue } from './loader';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-profiles-loader-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes `demo.yaml` with the given lines and returns its ProfileError message lines. */
function errorsOf(lines: string[]): string[] {
  const file = path.join(dir, 'demo.yaml');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  try {
    loadProfileFile(file);
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    // Compare relative to the temp dir so expectations read like the CLI output.
    return (err as ProfileError).message.split('\n').map((l) => l.replace(`${dir}${path.sep}`, ''));
  }
  throw new Error('expected the profile to be refused');
}

function issuesOf(text: string): ProfileIssue[] {
  try {
    loadProfileText(text, 'demo.yaml');
  } catch (err) {
    if (err instanceof ProfileError) return err.issues;
    throw err;
  }
  throw new Error('expected the profile to be refused');
}

const HEAD = ['# yaml-language-server: $schema=./profile.schema.json', 'name: demo', 'workspace: ./ws'];

describe('loadProfileFile: a valid profile', () => {
  it('applies defaults and takes the name from the file when absent', () => {
    const file = path.join(dir, 'my-profile.yaml');
    fs.writeFileSync(file, 'workspace: .\nservers:\n  files: { command: mcp-server-filesystem }\n  docs: { url: "http://127.0.0.1:1/mcp" }\n');
    const loaded = loadProfileFile(file);
    expect(loaded.name).toBe('my-profile');
    expect(loaded.absFile).toBe(file);
    expect(loaded.raw.tool_surface).toBe('friendly');
    expect(loaded.raw.policy).toEqual({
      default: 'approve',
      rules: [],
      approval_timeout_s: 120,
      sampling: 'approve',
      resources: 'allow',
      prompts: 'allow',
      data: { results: 'redact', arguments: 'approve' },
      flow: 'approve',
      marks: { private: [], untrusted: [], exfil: [] },
    });
    const files = loaded.raw.servers.files!;
    expect(files).toMatchObject({ command: 'mcp-server-filesystem', args: [], cwd: '${workspace}', framing: 'auto', disabled: false });
    expect(files.restart).toEqual({ max_restarts: 5, initial_backoff_ms: 500, max_backoff_ms: 30000, reset_after_s: 60 });
    expect(files.startup_timeout_s).toBe(30);
    expect(files.request_timeout_s).toBe(120);
    expect(loaded.raw.servers.docs).toMatchObject({ url: 'http://127.0.0.1:1/mcp', headers: {}, transport: 'auto' });
  });
});

describe('loadProfileFile: broken profiles say file:line:column and what was expected', () => {
  it('a list where a string belongs', () => {
    expect(errorsOf([...HEAD, 'servers:', '  files:', '    command:', '      - npx', '      - server'])).toEqual([
      'demo.yaml:7:7 servers.files.command: expected a string, got a list',
    ]);
  });

  it('a flow list where a string belongs points at the list', () => {
    expect(errorsOf([...HEAD, 'servers:', '  files:', '    command: [npx, server]'])).toEqual([
      'demo.yaml:6:14 servers.files.command: expected a string, got a list',
    ]);
  });

  it('an unknown key (a typo) points at the key and lists what is allowed', () => {
    const lines = errorsOf([...HEAD, 'servers:', '  files:', '    command: x', '    agrs: [a]']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^demo\.yaml:7:5 servers\.files\.agrs: unknown key 'agrs' \(expected one of command, args, env, inherit_env, cwd, framing, /);
    expect(lines[0]).toContain("did you mean 'args'?");
  });

  it('a misspelt command key: unknown key and no server kind', () => {
    expect(errorsOf([...HEAD, 'servers:', '  files:', '    comand: x'])).toEqual([
      expect.stringMatching(/^demo\.yaml:6:5 servers\.files\.comand: unknown key 'comand' \(expected one of command, .*did you mean 'command'\?$/),
      'demo.yaml:6:5 servers.files: expected exactly one of command, url or builtin, got none of them',
    ]);
  });

  it('a server with neither command, url nor builtin', () => {
    expect(errorsOf([...HEAD, 'servers:', '  files:', '    args: [a]'])).toEqual([
      'demo.yaml:6:5 servers.files: expected exactly one of command, url or builtin, got none of them',
    ]);
  });

  it('a server with both command and url', () => {
    expect(errorsOf([...HEAD, 'servers:', '  files:', '    command: x', '    url: http://h/mcp'])).toEqual([
      'demo.yaml:6:5 servers.files: expected exactly one of command, url or builtin, got both command and url',
    ]);
  });

  it('a server entry that is not a map', () => {
    expect(errorsOf([...HEAD, 'servers:', '  files: mcp-server-filesystem'])).toEqual([
      'demo.yaml:5:10 servers.files: expected a map with exactly one of command, url or builtin, got a string',
    ]);
  });

  it('keys valid for another kind are unknown for this one', () => {
    expect(errorsOf([...HEAD, 'servers:', '  docs:', '    url: http://h/mcp', '    args: [a]'])).toEqual([
      expect.stringMatching(/^demo\.yaml:7:5 servers\.docs\.args: unknown key 'args' \(expected one of url, headers, transport, /),
    ]);
  });

  it('a bad enum value', () => {
    expect(errorsOf([...HEAD, 'tool_surface: friendy'])).toEqual([
      "demo.yaml:4:15 tool_surface: expected one of friendly, canonical, both, lazy, got 'friendy'",
    ]);
  });

  it('a bad server id points at the id', () => {
    expect(errorsOf([...HEAD, 'servers:', '  My.Files:', '    command: x'])).toEqual([
      "demo.yaml:5:3 servers[\"My.Files\"]: a server id is lowercase letters, digits and '-', starting with a letter (no dots), got 'My.Files'",
    ]);
  });

  it('a missing required key points at the parent map', () => {
    expect(errorsOf(['# comment', 'name: demo', 'policy:', '  rules:', '    - match: "x.*"'])).toEqual(['demo.yaml:5:7 policy.rules[0].decision: expected one of allow, approve, deny, got undefined']);
    // `workspace:` is optional (it defaults; profiles/resolve.ts): a profile of external servers needs none.
    const file = path.join(dir, 'demo.yaml');
    fs.writeFileSync(file, 'name: demo\nservers: {}\n');
    expect(loadProfileFile(file).raw.workspace).toBeUndefined();
  });

  it('an empty value points at its key', () => {
    expect(errorsOf([...HEAD, 'servers:', '  files:', '    command:'])).toEqual([
      'demo.yaml:6:5 servers.files.command: expected a string, got an empty value',
    ]);
  });

  it('a number where a string belongs suggests quoting', () => {
    expect(errorsOf([...HEAD, 'servers:', '  files:', '    command: x', '    env: { PORT: 8080 }'])).toEqual([
      'demo.yaml:7:18 servers.files.env.PORT: expected a string, got a number (8080) (quote it to make it a string)',
    ]);
  });

  it('a YAML syntax error', () => {
    const lines = errorsOf([...HEAD, 'servers:', '  files: { command: x', 'policy: {}']);
    expect(lines[0]).toMatch(/^demo\.yaml:\d+:\d+ YAML syntax error: /);
    expect(lines[0]).not.toContain('at line');
  });

  it('a duplicated key is a syntax error, not "last one wins"', () => {
    expect(errorsOf([...HEAD, 'workspace: ./other'])).toEqual(['demo.yaml:4:1 YAML syntax error: Map keys must be unique']);
  });

  it('a policy rule naming a server the profile does not have', () => {
    expect(
      errorsOf([...HEAD, 'servers:', '  files: { command: x }', 'policy:', '  rules:', '    - match: "*"', '      servers: [files, fiels]', '      decision: allow']),
    ).toEqual(["demo.yaml:9:24 policy.rules[0].servers[1]: unknown server 'fiels' (this profile's servers: files)"]);
  });

  it('an unknown server in a rule is reported together with other mistakes', () => {
    const lines = errorsOf([...HEAD, 'tool_surface: nope', 'servers:', '  files: { command: x }', 'policy:', '  rules:', '    - { match: "*", servers: [x], decision: allow }']);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("unknown server 'x'");
  });

  it('several problems at once, in file order', () => {
    const lines = errorsOf([
      ...HEAD,
      'tool_surface: both',
      'servers:',
      '  files:',
      '    command: x',
      '    framing: lines',
      '    restart: { max_restarts: -1 }',
      'policy:',
      '  default: maybe',
      '  rules:',
      '    - match: 7',
      '      decision: allow',
      '    - match: "*"',
      '      args: { path: { pattern: "(" } }',
      '      decision: deny',
    ]);
    expect(lines).toEqual([
      "demo.yaml:8:14 servers.files.framing: expected one of auto, line, content-length, got 'lines'",
      'demo.yaml:9:30 servers.files.restart.max_restarts: expected a number ≥ 0, got -1',
      "demo.yaml:11:12 policy.default: expected one of allow, approve, deny, got 'maybe'",
      'demo.yaml:13:14 policy.rules[0].match: expected a string or a list, got a number (7)',
      "demo.yaml:16:32 policy.rules[1].args.path.pattern: not a valid regular expression: '('",
    ]);
  });

  it('an unknown top-level key and a wrong agent key', () => {
    expect(errorsOf([...HEAD, 'polcy: {}', 'agent: { preset: x, shell: y }'])).toEqual([
      expect.stringMatching(/^demo\.yaml:4:1 polcy: unknown key 'polcy' \(expected one of name, .*did you mean 'policy'\?$/),
      "demo.yaml:5:18 agent.preset: expected one of claude-code, codex, gemini, shell, custom, got 'x'",
      expect.stringMatching(/^demo\.yaml:5:21 agent\.shell: unknown key 'shell' \(expected one of preset, command, args, env, inherit_env, cwd, autostart, sandbox, limits\)$/),
    ]);
  });

  it('a bad alias and a target that is not a canonical name', () => {
    expect(errorsOf([...HEAD, 'aliases:', '  "bad alias": files.read_file', '  ok: read_file'])).toEqual([
      "demo.yaml:5:3 aliases[\"bad alias\"]: an alias is 1-64 of A-Z a-z 0-9 _ -, got 'bad alias'",
      "demo.yaml:6:7 aliases.ok: expected a canonical tool name like files.read_file, got 'read_file'",
    ]);
  });

  it('issues carry the parts separately', () => {
    expect(issuesOf('workspace: .\ntool_surface: x\n')).toEqual([
      { file: 'demo.yaml', line: 2, column: 15, path: 'tool_surface', message: "expected one of friendly, canonical, both, lazy, got 'x'" },
    ]);
  });

  it('an empty file and a file that is not a map', () => {
    expect(issuesOf('# nothing\n')[0]?.message).toMatch(/empty/);
    expect(issuesOf('- a\n- b\n')).toEqual([{ file: 'demo.yaml', line: 1, column: 1, path: '', message: 'expected a map, got a list' }]);
  });

  it('a missing file', () => {
    expect(() => loadProfileFile(path.join(dir, 'nope.yaml'))).toThrow(/nope\.yaml:1:1 cannot read profile: no such file/);
  });
});
