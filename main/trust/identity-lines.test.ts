// The launch review card in words (docs/trust.md "What the card shows"): every identity key has a
// label, the sandbox reads as what the server may do, internal sizes carry a unit, and the words
// are never what is hashed: the pins stay as they were, and a change the words leave out (a
// secret's value, a path swapped for another) is still marked on its line.
import { describe, expect, it } from 'vitest';
import type { BuiltinServerSpec, HttpServerSpec, ResolvedProfile, StdioServerSpec } from '../profiles/types';
import { Redactor } from '../secrets/redactor';
import { changedFields, IDENTITY_LABELS, identityHash, identityLines, launchIdentity, type LaunchIdentity } from './identity';
import { profileIdentity } from './profile-identity';
import type { ProgramIdentity } from './program-identity';

const redactor = new Redactor();
redactor.add('OAUTH', 'client-secret-value-9876');
const profile = { redactor } as Pick<ResolvedProfile, 'redactor'>;
const restart = { maxRestarts: 1, initialBackoffMs: 1, maxBackoffMs: 1, resetAfterMs: 1 };
const common = { disabled: false, restart, startupTimeoutMs: 1, requestTimeoutMs: 1, description: 'd', maxMessageBytes: 16 * 1024 ** 2, tools: { include: ['read_*'], exclude: ['read_secret'] } };
const sandbox = {
  mode: 'strict' as const,
  write: ['/tmp/out'],
  read: ['/home/u/.gitconfig'],
  network: { kind: 'none' as const },
  hostPorts: [],
  limits: { processes: 256, memoryBytes: 512 * 1024 ** 2 },
};

// `satisfies Required<…>`: a field added to a ServerSpec fails the typecheck here until it is
// given a value, and then this test fails until the field has a label.
const stdio = {
  ...common,
  id: 'files',
  kind: 'stdio',
  command: 'mcp-server-filesystem',
  args: ['/ws'],
  env: { A: '1' },
  envRefs: ['A=${secret:X}'],
  inheritEnv: ['HOME'],
  cwd: '/ws',
  framing: 'auto',
  trust: 'pin',
  sandbox,
  launcher: { tool: 'npx', spec: '@modelcontextprotocol/server-filesystem', name: '@modelcontextprotocol/server-filesystem', version: '1.2.3', dir: '/cache/fs' },
} satisfies Required<StdioServerSpec>;
const http = {
  ...common,
  id: 'docs',
  kind: 'http',
  url: 'https://mcp.example.com/mcp',
  headers: { Authorization: 'x' },
  headerRefs: ['Authorization=${secret:T}'],
  transport: 'auto',
  oauth: { clientId: 'gh-app', clientSecret: 'client-secret-value-9876', scopes: ['read'], redirectPort: 8765 },
  trust: 'accept-new',
} satisfies Required<HttpServerSpec>;
const builtin = { ...common, id: 'workspace', kind: 'builtin', builtin: 'workspace-tools', env: {}, envRefs: [], inheritEnv: [], options: { max: 1 }, sandbox } satisfies Required<BuiltinServerSpec>;
const program: ProgramIdentity = { executable: { path: '/usr/bin/node', sha256: 'ab'.repeat(32) } };
const own = profileIdentity({
  policy: {
    default: 'approve',
    rules: [{ match: ['fs.*'], decision: 'allow' }],
    approvalTimeoutS: 60,
    sampling: 'deny',
    resources: 'approve',
    prompts: 'allow',
    data: { results: 'hold', arguments: 'deny' },
    flow: 'deny',
    marks: { private: ['fs.*'], untrusted: [], exfil: ['net.post'] },
  },
  toolSurface: 'friendly',
  aliases: { r: 'files.read' },
  workspace: '/ws',
  workspaceSource: 'profile',
  redactor,
} as Parameters<typeof profileIdentity>[0]);

// identityHash(launchIdentity(stdio, profile, program)) as the code before this card spoke in words made it.
const PINNED_HASH = 'b3909815b2b195fd0a88ee59f7b272cd7c6f6b4ded418c7162bdf3e4f78e3c1e';

const line = (id: LaunchIdentity, field: string, ctx = {}) => identityLines(id, ctx).find((l) => l.field === field);

describe('identityLines', () => {
  it('every key of every identity has a label: the card never shows a raw key', () => {
    const ids = [launchIdentity(stdio, profile, program), launchIdentity(http, profile), launchIdentity(builtin, profile), own];
    const fields = ids.flatMap((id) => identityLines(id).map((l) => l.field));
    for (const key of ids.flatMap((id) => Object.keys(id))) if (key !== 'kind' && key !== 'args') expect(fields).toContain(key);
    const unlabelled = ids.flatMap((id) => identityLines(id)).filter((l) => !IDENTITY_LABELS[l.field] || l.label === l.field);
    expect(unlabelled.map((l) => l.field)).toEqual([]);
  });

  it('the sandbox in words, with the kind this machine runs, every path, and the limits', () => {
    const id = launchIdentity(stdio, profile);
    expect(line(id, 'sandbox', { sandboxKind: 'bubblewrap' })).toEqual({
      field: 'sandbox',
      label: 'Sandbox',
      value: 'strict (bubblewrap) · network: none · reads: system files, workspace, /home/u/.gitconfig · writes: workspace, /tmp/out · limits: 256 processes, 512 MiB',
    });
    const bare = launchIdentity({ ...stdio, sandbox: { mode: 'strict', write: [], read: [], network: { kind: 'allow', hosts: ['api.example.com'] }, hostPorts: [8080] } }, profile);
    expect(line(bare, 'sandbox')?.value).toBe('strict · network: allow (api.example.com) · host ports: 8080 · reads: system files, workspace · writes: workspace · limits: 256 processes, 2 GiB (the defaults)');
    const off = launchIdentity({ ...stdio, sandbox: { ...sandbox, mode: 'off' } }, profile);
    expect(line(off, 'sandbox', { sandboxKind: 'bubblewrap' })?.value).toBe('off: runs unconfined (sandbox: off in the profile) · limits: 256 processes, 512 MiB');
    const docker = launchIdentity({ ...stdio, command: 'docker', args: ['run', '-i', 'mcp/fetch'] }, profile);
    expect(line(docker, 'sandbox', { sandboxKind: 'bubblewrap' })?.value).toMatch(/^strict \(container\) · /);
  });

  it('internal sizes and structures read in words; a secret is never on the card', () => {
    const id = launchIdentity(stdio, profile);
    expect(line(id, 'maxMessageBytes')).toMatchObject({ label: 'Largest message', value: '16 MiB' });
    expect(line(id, 'tools')?.value).toBe('only read_* · except read_secret');
    expect(line(id, 'launcher')?.value).toBe('@modelcontextprotocol/server-filesystem 1.2.3 (from `npx @modelcontextprotocol/server-filesystem`, run from /cache/fs)');
    expect(line(id, 'trust')?.value).toBe('pin: a new or changed tool waits for a person');
    const h = launchIdentity(http, profile);
    expect(line(h, 'oauth')?.value).toBe('OAuth · client id gh-app · client secret set · scopes read · redirect port 8765');
    expect(JSON.stringify(identityLines(h))).not.toContain('client-secret-value');
    for (const l of identityLines(id)) expect(l.value).not.toMatch(/^\{"/);
  });

  it('an identity of an older shape (a sandbox this code does not know) is still shown, as JSON', () => {
    expect(line({ sandbox: { writable: ['/ws'], network: 'none' } }, 'sandbox')?.value).toBe('{"network":"none","writable":["/ws"]}');
  });
});

describe('the words are not the identity', () => {
  it('the hash is over the identity: the same as before the card spoke in words, whatever the machine', () => {
    const id = launchIdentity(stdio, profile, program);
    // Pinned: a change to launchIdentity's output would ask every person again for every server.
    expect(identityHash(id)).toBe(PINNED_HASH);
    expect(identityLines(id, { sandboxKind: 'landlock' })).not.toEqual(identityLines(id, { sandboxKind: 'bubblewrap' }));
    expect(changedFields(id, id)).toEqual([]);
  });

  it('a change the words leave out is still marked on its line', () => {
    const before = launchIdentity(http, profile);
    const rotated = new Redactor();
    rotated.add('OAUTH2', 'another-client-secret-55');
    const after = launchIdentity({ ...http, oauth: { ...http.oauth, clientSecret: 'another-client-secret-55' } }, { redactor: rotated });
    expect(line(before, 'oauth')?.value).toBe(line(after, 'oauth')?.value);
    expect(changedFields(before, after)).toEqual(['oauth']);
    // One write path swapped for another: the words change too, and the field is marked.
    const a = launchIdentity(stdio, profile);
    const b = launchIdentity({ ...stdio, sandbox: { ...sandbox, write: ['/etc'] } }, profile);
    expect(changedFields(a, b)).toEqual(['sandbox']);
    expect(line(b, 'sandbox')?.value).toContain('writes: workspace, /etc');
  });
});
