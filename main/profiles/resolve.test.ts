import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SecretProvider } from '../secrets/provider';
import { loadProfileFile, ProfileError } from './loader';
import { resolveProfile, type ResolveContext } from './resolve';
import type { BuiltinServerSpec, HttpServerSpec, StdioServerSpec } from './types';

let dir: string;
let dataDir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-profiles-resolve-'));
  dataDir = path.join(dir, 'data');
  fs.mkdirSync(path.join(dir, 'ws'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(lines: string[], name = 'demo.yaml'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function resolveLines(lines: string[], ctx: Partial<ResolveContext> = {}) {
  return resolveProfile(loadProfileFile(write(lines)), { dataDir, env: {}, ...ctx });
}

function resolveErrors(lines: string[], ctx: Partial<ResolveContext> = {}): string[] {
  try {
    resolveLines(lines, ctx);
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    return (err as ProfileError).message.split('\n').map((l) => l.replace(`${dir}${path.sep}`, ''));
  }
  throw new Error('expected resolution to fail');
}

/** A provider over a plain map, standing in for a keychain. */
class MapSecretProvider implements SecretProvider {
  constructor(private readonly values: Record<string, string>) {}
  get(name: string): string | undefined {
    return this.values[name];
  }
  describe(name: string): string {
    return `the test keychain entry ${name}`;
  }
}

describe('resolveProfile', () => {
  it('expands every form and converts to the resolved shape', () => {
    const p = resolveLines(
      [
        'name: demo',
        'description: hi',
        'workspace: ./ws',
        'tool_surface: both',
        'servers:',
        '  files:',
        '    command: mcp-server-filesystem',
        '    args: ["${workspace}", "${data}/x", "${env:HOME_DIR}", "${env:NOPE:-fallback}", "${env:EMPTY:-used}", "$${workspace}", "a $ b"]',
        '    env: { API_KEY: "${secret:FILES_KEY}", LEVEL: info }',
        '    inherit_env: [LANG]',
        '    cwd: sub',
        '    framing: content-length',
        '    restart: { max_restarts: 2, initial_backoff_ms: 10, max_backoff_ms: 100, reset_after_s: 1.5 }',
        '    startup_timeout_s: 2',
        '    request_timeout_s: 0.5',
        '  docs:',
        '    url: "http://127.0.0.1:9000/${env:MCP_PATH}"',
        '    headers: { Authorization: "Bearer ${secret:DOCS_TOKEN}" }',
        '    transport: sse',
        '    disabled: true',
        '  tools:',
        '    builtin: workspace-tools',
        '    options: { exec: { allowed_commands: ["${workspace}/bin/run"] }, max_read_bytes: 10 }',
        'aliases: { search: files.search_files }',
        'policy:',
        '  default: deny',
        '  approval_timeout_s: 30',
        '  sampling: deny',
        '  rules:',
        '    - { match: "files.read_*", decision: allow }',
        '    - match: ["*"]',
        '      servers: [docs]',
        '      annotations: { readOnlyHint: true }',
        '      args: { path: { inside_workspace: true } }',
        '      decision: approve',
        '      reason: why not',
        'agent: { preset: claude-code }',
      ],
      {
        env: { HOME_DIR: '/home/ada', EMPTY: '', MCP_PATH: 'mcp' },
        secrets: new MapSecretProvider({ FILES_KEY: 'files-secret-1', DOCS_TOKEN: 'docs-token-2' }),
      },
    );
    const ws = path.join(dir, 'ws');
    expect(p).toMatchObject({
      name: 'demo',
      description: 'hi',
      file: path.join(dir, 'demo.yaml'),
      workspace: ws,
      dataDir,
      toolSurface: 'both',
      aliases: { search: 'files.search_files' },
      agent: { preset: 'claude-code' },
    });
    const [files, docs, tools] = p.servers as [StdioServerSpec, HttpServerSpec, BuiltinServerSpec];
    expect(files).toEqual({
      id: 'files',
      kind: 'stdio',
      command: 'mcp-server-filesystem',
      args: [ws, `${dataDir}/x`, '/home/ada', 'fallback', 'used', '${workspace}', 'a $ b'],
      env: { API_KEY: 'files-secret-1', LEVEL: 'info' },
      // Which secret each value is made of, for the launch identity (main/trust/identity.ts).
      envRefs: ['API_KEY=${secret:FILES_KEY}'],
      inheritEnv: ['LANG'],
      cwd: path.join(ws, 'sub'),
      framing: 'content-length',
      trust: 'pin',
      sandbox: { mode: 'strict', write: [], read: [], network: { kind: 'none' }, hostPorts: [] },
      disabled: false,
      restart: { maxRestarts: 2, initialBackoffMs: 10, maxBackoffMs: 100, resetAfterMs: 1500 },
      startupTimeoutMs: 2000,
      requestTimeoutMs: 500,
      maxMessageBytes: 4 * 1024 * 1024,
    });
    expect(docs).toMatchObject({
      kind: 'http',
      url: 'http://127.0.0.1:9000/mcp',
      headers: { Authorization: 'Bearer docs-token-2' },
      headerRefs: ['Authorization=${secret:DOCS_TOKEN}'],
      transport: 'sse',
      trust: 'pin',
      disabled: true,
    });
    expect(tools).toMatchObject({ kind: 'builtin', builtin: 'workspace-tools', env: {}, inheritEnv: [] });
    expect(tools.options).toEqual({ exec: { allowed_commands: [`${ws}/bin/run`] }, max_read_bytes: 10 });
    expect(p.policy).toEqual({
      default: 'deny',
      approvalTimeoutS: 30,
      sampling: 'deny',
      resources: 'allow',
      prompts: 'allow',
      rules: [
        { match: ['files.read_*'], decision: 'allow' },
        { match: ['*'], servers: ['docs'], annotations: { readOnlyHint: true }, args: { path: { inside_workspace: true } }, decision: 'approve', reason: 'why not' },
      ],
      // The data scanning and flow defaults (docs/data.md).
      data: { results: 'redact', arguments: 'approve' },
      flow: 'approve',
      marks: { private: [], untrusted: [], exfil: [] },
    });
    // Secrets are in the redactor, so they are redacted everywhere downstream.
    expect(p.redactor.redactString('key=files-secret-1 token=docs-token-2')).toBe('key=«secret:FILES_KEY» token=«secret:DOCS_TOKEN»');
    expect(p.redactor.redactJson(docs.headers)).toEqual({ Authorization: 'Bearer «secret:DOCS_TOKEN»' });
  });

  it('defaults: cwd is the workspace, secrets come from the environment', () => {
    const p = resolveLines(['workspace: ws', 'servers:', '  m: { command: x, env: { K: "${secret:MY_KEY}" } }'], {
      env: { GATEHOUSE_SECRET_MY_KEY: 'prefixed-wins', MY_KEY: 'plain' },
    });
    const m = p.servers[0] as StdioServerSpec;
    expect(m.cwd).toBe(path.join(dir, 'ws'));
    expect(m.env.K).toBe('prefixed-wins');
    expect(p.redactor.redactString('prefixed-wins')).toBe('«secret:MY_KEY»');
    expect(p.name).toBe('demo');
  });

  it('sandbox: shorthands, grants with ~ and ${…}, network forms; the agent keeps "no network given"', () => {
    const p = resolveLines(
      [
        'workspace: ws',
        'servers:',
        '  a: { command: x }',
        '  b: { command: x, sandbox: off }',
        '  c: { command: x, sandbox: { write: ["~/.cache/c", "${data}/c", "out"], read: ["/etc/x"], network: loopback, host_ports: [5432] } }',
        '  d: { builtin: workspace-tools, sandbox: { network: { allow: ["api.example.com", "*.example.org:443"] } } }',
        'agent: { preset: shell, sandbox: { write: ["~/notes"] } }',
      ],
      { env: { HOME: '/home/ada' } },
    );
    const [a, b, c, d] = p.servers as [StdioServerSpec, StdioServerSpec, StdioServerSpec, BuiltinServerSpec];
    expect(a.sandbox).toEqual({ mode: 'strict', write: [], read: [], network: { kind: 'none' }, hostPorts: [] });
    expect(b.sandbox.mode).toBe('off');
    expect(c.sandbox).toEqual({
      mode: 'strict',
      write: ['/home/ada/.cache/c', path.join(dataDir, 'c'), path.join(dir, 'ws', 'out')],
      read: ['/etc/x'],
      network: { kind: 'loopback' },
      hostPorts: [5432],
    });
    expect(d.sandbox.network).toEqual({ kind: 'allow', hosts: ['api.example.com', '*.example.org:443'] });
    expect(p.agent?.sandbox).toEqual({ mode: 'strict', write: ['/home/ada/notes'], read: [], hostPorts: [] });
  });

  it('sandbox: host_ports with network none is refused, and http servers have no sandbox key', () => {
    expect(resolveErrors(['workspace: ws', 'servers:', '  a: { command: x, sandbox: { network: none, host_ports: [80] } }'])).toEqual([
      'demo.yaml:3:58 servers.a.sandbox.host_ports: host_ports needs network: loopback or {allow: [...]} (network: none reaches no port of the host)',
    ]);
    expect(() => resolveLines(['workspace: ws', 'servers:', '  h: { url: "http://x", sandbox: off }'])).toThrow(/unknown key 'sandbox'/);
  });

  it('limits: sizes in MiB/GiB or bytes, defaults for what is left out, on sandbox: off and the agent too', () => {
    const p = resolveLines([
      'workspace: ws',
      'servers:',
      '  a: { command: x, limits: { processes: 64, memory: 512MiB, cpu: 50 } }',
      '  b: { command: x, sandbox: off, limits: { memory: 1.5GiB } }',
      '  c: { builtin: workspace-tools, limits: { memory: 1073741824 } }',
      '  d: { command: x }',
      'agent: { preset: shell, limits: { processes: 512 } }',
    ]);
    const [a, b, c, d] = p.servers as StdioServerSpec[];
    expect(a!.sandbox.limits).toEqual({ processes: 64, memoryBytes: 512 * 1024 ** 2, cpuPercent: 50 });
    expect(b!.sandbox).toMatchObject({ mode: 'off', limits: { processes: 256, memoryBytes: 1.5 * 1024 ** 3 } });
    expect(c!.sandbox.limits).toEqual({ processes: 256, memoryBytes: 1024 ** 3 });
    // Absent: DEFAULT_LIMITS apply (main/sandbox/types.ts).
    expect(d!.sandbox.limits).toBeUndefined();
    expect(p.agent?.sandbox).toEqual({ mode: 'strict', write: [], read: [], hostPorts: [], limits: { processes: 512, memoryBytes: 2 * 1024 ** 3 } });
  });

  it('limits: a size without a unit it knows, too few processes or no cpu are refused with file:line', () => {
    expect(
      resolveErrors([
        'workspace: ws',
        'servers:',
        '  a: { command: x, limits: { memory: 2 gigs } }',
        '  b: { command: x, limits: { memory: 2GB, processes: 4 } }',
        '  c: { command: x, limits: { cpu: 0, disk: 1 } }',
        '  d: { command: x, limits: { memory: 1MiB } }',
      ]),
    ).toEqual([
      "demo.yaml:3:38 servers.a.limits.memory: expected a size like 512MiB, 2GiB or a number of bytes, at least 16MiB, got '2 gigs'",
      "demo.yaml:4:38 servers.b.limits.memory: expected a size like 512MiB, 2GiB or a number of bytes, at least 16MiB, got '2GB'",
      'demo.yaml:4:54 servers.b.limits.processes: processes counts threads too (node alone runs about 11), so at least 16, got 4',
      'demo.yaml:5:35 servers.c.limits.cpu: cpu is a percent of one core (50 = half a core, 200 = two cores), above 0, got 0',
      "demo.yaml:5:38 servers.c.limits.disk: unknown key 'disk' (expected one of processes, memory, cpu)",
      "demo.yaml:6:38 servers.d.limits.memory: expected a size like 512MiB, 2GiB or a number of bytes, at least 16MiB, got '1MiB'",
    ]);
  });

  it('${data} and ${env:…} work in workspace itself, relative to the profile file', () => {
    fs.mkdirSync(path.join(dataDir, 'w'), { recursive: true });
    const p = resolveLines(['workspace: "${data}/w"']);
    expect(p.workspace).toBe(path.join(dataDir, 'w'));
    const q = resolveLines(['workspace: "${env:WS:-.}/ws"']);
    expect(q.workspace).toBe(path.join(dir, 'ws'));
  });

  it('credentials written in clear in headers and env are redacted too', () => {
    const p = resolveLines(['workspace: ws', 'servers:', '  d: { url: "https://h/mcp", headers: { Authorization: "Bearer literal-token" } }', '  s: { command: x, env: { GITHUB_TOKEN: ghp_abcdef, LEVEL: info } }']);
    expect(p.redactor.redactString('Bearer literal-token ghp_abcdef info')).toBe('«secret:d.Authorization» «secret:s.GITHUB_TOKEN» info');
  });

  it('a missing secret names where it looked, at the token, without any secret value', () => {
    const lines = resolveErrors(
      ['workspace: ws', 'servers:', '  files:', '    command: x', '    env: { OK: "${secret:PRESENT}", API_KEY: "${secret:FILES_KEY}" }'],
      { env: { PRESENT: 'present-secret-value' } },
    );
    expect(lines).toEqual([
      'demo.yaml:5:47 servers.files.env.API_KEY: secret FILES_KEY is not set (looked in environment variable GATEHOUSE_SECRET_FILES_KEY or FILES_KEY)',
    ]);
    expect(lines.join('\n')).not.toContain('present-secret-value');
  });

  it('a secret embedded in a bad URL never shows in the message', () => {
    const lines = resolveErrors(['workspace: ws', 'servers:', '  d: { url: "ftp://user:${secret:PW}@host/mcp" }'], { env: { PW: 'hunter2-secret' } });
    expect(lines).toEqual(['demo.yaml:3:13 servers.d.url: expected an http:// or https:// URL, got ftp://user:«secret:PW»@host/mcp']);
  });

  it('a missing env var without default, an unknown form, a bad name, an unterminated ${: all at once', () => {
    const lines = resolveErrors([
      'workspace: ws',
      'servers:',
      '  a:',
      '    command: "${env:NO_SUCH_VAR}"',
      '    args: ["x ${sercet:K}", "${env:1BAD}", "${workspace"]',
    ]);
    expect(lines).toEqual([
      'demo.yaml:4:15 servers.a.command: environment variable NO_SUCH_VAR is not set (write ${env:NO_SUCH_VAR:-default} to fall back to a default)',
      'demo.yaml:5:15 servers.a.args[0]: unknown expansion ${sercet:K} (expected ${workspace}, ${data}, ${env:NAME}, ${env:NAME:-default}, ${secret:NAME}, or $${ for a literal ${)',
      "demo.yaml:5:30 servers.a.args[1]: '1BAD' is not an environment variable name in ${env:1BAD}",
      "demo.yaml:5:45 servers.a.args[2]: unterminated '${' (write $${ for a literal ${)",
    ]);
  });

  it('a provider other than the environment describes itself in the error', () => {
    expect(resolveErrors(['workspace: ws', 'servers:', '  a: { command: x, env: { K: "${secret:K}" } }'], { secrets: new MapSecretProvider({}) })).toEqual([
      'demo.yaml:3:31 servers.a.env.K: secret K is not set (looked in the test keychain entry K)',
    ]);
  });

  it('a workspace that does not exist, or ${workspace} inside workspace', () => {
    expect(resolveErrors(['workspace: ./missing'])).toEqual([`demo.yaml:1:12 workspace: workspace folder ${path.join(dir, 'missing')} does not exist`]);
    expect(resolveErrors(['workspace: "${workspace}/x"'])).toEqual(['demo.yaml:1:13 workspace: ${workspace} cannot be used in `workspace` itself']);
  });

  it('nothing half-way: one bad server fails the whole profile', () => {
    expect(() =>
      resolveLines(['workspace: ws', 'servers:', '  good: { command: x }', '  bad: { command: "${env:MISSING}" }']),
    ).toThrow(ProfileError);
  });
});

describe('workspace: optional', () => {
  const external = ['servers:', '  files:', '    command: mcp-server-filesystem', '    args: ["${workspace}"]'];

  it("defaults to the profile file's folder (a bundled or user profile), and says so", () => {
    const p = resolveLines(external);
    expect(p.workspace).toBe(dir);
    expect(p.workspaceSource).toBe('profile-folder');
    expect((p.servers[0] as StdioServerSpec).args).toEqual([dir]);
    expect((p.servers[0] as StdioServerSpec).cwd).toBe(dir);
  });

  it('defaults to the current directory for --profile FILE', () => {
    const here = path.join(dir, 'ws');
    const p = resolveLines(external, { defaultWorkspace: 'cwd', cwd: here });
    expect(p.workspace).toBe(here);
    expect(p.workspaceSource).toBe('cwd');
  });

  it('keeps an explicit one, marked as written', () => {
    const p = resolveLines(['workspace: ./ws', ...external], { defaultWorkspace: 'cwd', cwd: os.tmpdir() });
    expect(p.workspace).toBe(path.join(dir, 'ws'));
    expect(p.workspaceSource).toBe('profile');
  });

  it('refuses a built-in tools server without one, naming the file and the line of the server', () => {
    const errors = resolveErrors(['servers:', '  files:', '    command: mcp-server-filesystem', '  tools:', '    builtin: workspace-tools'], { defaultWorkspace: 'cwd', cwd: dir });
    expect(errors).toEqual([
      "demo.yaml:5:14 servers.tools.builtin: the built-in tools server 'tools' needs an explicit `workspace:` (the folder its tools are confined to); add e.g. `workspace: .` at the top of the profile",
    ]);
  });
});

describe('imported configs that should just run', () => {
  it('a disabled server needs none of its secrets; an enabled one still does', () => {
    const lines = ['workspace: ./ws', 'servers:', '  unused:', '    command: srv', '    disabled: true', '    env: { KEY: "${secret:NOT_SET}" }', '  used:', '    command: srv'];
    const p = resolveLines(lines);
    expect(p.servers.map((s) => s.id)).toEqual(['unused', 'used']);
    expect(resolveErrors(lines.map((l) => l.replace('disabled: true', 'disabled: false'))).join('\n')).toMatch(/NOT_SET/);
  });

  it('`command: ~/…` is the home folder, as grants are read', () => {
    const p = resolveLines(['workspace: ./ws', 'servers:', '  mine:', '    command: ~/bin/my-server'], { env: { HOME: '/home/alice' } });
    expect((p.servers[0] as StdioServerSpec).command).toBe('/home/alice/bin/my-server');
  });
});
