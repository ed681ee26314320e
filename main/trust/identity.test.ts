// The launch identity (docs/trust.md): what a person approves. Env and header VALUES stay out
// (they may be secrets); secret values in argv are redacted; a URL server is its origin; a
// field ServerSpec gains later (the sandbox profile) joins the identity without code here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResolvedProfile, ServerSpec } from '../profiles/types';
import { Redactor } from '../secrets/redactor';
import { changedFields, identityHash, identityLines, launchIdentity, templatedIdentity } from './identity';
import { TrustStore, type TrustDecision } from './pin-store';

const redactor = new Redactor();
redactor.add('TOKEN', 'sk-very-secret-value-123');
const profile = { redactor } as Pick<ResolvedProfile, 'redactor'>;
const base = {
  id: 'files',
  kind: 'stdio',
  command: 'mcp-server-filesystem',
  args: ['/ws', '--token', 'sk-very-secret-value-123'],
  env: { B: 'x', A: 'sk-very-secret-value-123' },
  inheritEnv: ['LANG', 'HOME'],
  cwd: '/ws',
  framing: 'auto',
  trust: 'pin',
  disabled: false,
  restart: { maxRestarts: 1, initialBackoffMs: 1, maxBackoffMs: 1, resetAfterMs: 1 },
  startupTimeoutMs: 1000,
  requestTimeoutMs: 1000,
} as unknown as ServerSpec;

describe('launchIdentity', () => {
  it('keeps argv, cwd, env names and the pinning mode; never env values or secrets', () => {
    const id = launchIdentity(base, profile);
    expect(id).toEqual({
      kind: 'stdio',
      command: 'mcp-server-filesystem',
      args: ['/ws', '--token', '«secret:TOKEN»'],
      envNames: ['A', 'B'],
      inheritEnv: ['HOME', 'LANG'],
      cwd: '/ws',
      trust: 'pin',
    });
    expect(JSON.stringify(id)).not.toContain('sk-very-secret');
    expect(identityLines(id)[0]).toEqual({ field: 'command', label: 'Command', value: "mcp-server-filesystem /ws --token '«secret:TOKEN»'" });
  });

  it('ignores timeouts, restarts and the description; an env value or a rotated secret is not a change', () => {
    const a = identityHash(launchIdentity(base, profile));
    expect(identityHash(launchIdentity({ ...base, startupTimeoutMs: 5, description: 'x', restart: { ...base.restart, maxRestarts: 9 } } as ServerSpec, profile))).toBe(a);
    expect(identityHash(launchIdentity({ ...base, env: { A: 'other', B: 'y' } } as ServerSpec, profile))).toBe(a);
  });

  it('an added argument, env name, cwd or pinning mode is a change, named field by field', () => {
    const before = launchIdentity(base, profile);
    const after = launchIdentity({ ...base, args: [...(base as { args: string[] }).args, '/'], env: { ...(base as { env: object }).env, C: '1' }, trust: 'off' } as ServerSpec, profile);
    expect(identityHash(after)).not.toBe(identityHash(before));
    expect(changedFields(before, after)).toEqual(['command', 'envNames', 'trust']);
  });

  it('a field ServerSpec does not know yet (a sandbox profile) joins the identity', () => {
    const withSandbox = { ...base, sandbox: { writable: ['/ws'], network: 'none' } } as unknown as ServerSpec;
    const id = launchIdentity(withSandbox, profile);
    expect(id.sandbox).toEqual({ network: 'none', writable: ['/ws'] });
    expect(identityHash(id)).not.toBe(identityHash(launchIdentity(base, profile)));
    expect(identityLines(id).map((l) => l.field)).toContain('sandbox');
  });

  it('a URL server is identified by its origin and header names', () => {
    const http = {
      id: 'docs', kind: 'http', url: 'https://mcp.example.com:8443/v1/mcp?x=1', headers: { Authorization: 'Bearer sk-very-secret-value-123' },
      transport: 'auto', trust: 'pin', disabled: false, restart: base.restart, startupTimeoutMs: 1, requestTimeoutMs: 1,
    } as ServerSpec;
    expect(launchIdentity(http, profile)).toEqual({ kind: 'http', origin: 'https://mcp.example.com:8443', headerNames: ['Authorization'], trust: 'pin' });
  });

  it('templated for a bundled pin: workspace before the app folder it sits in', () => {
    const id = launchIdentity({ ...base, args: ['/app/workspace-profiles/demo-workspace'], cwd: '/app/workspace-profiles/demo-workspace', env: {} } as ServerSpec, profile);
    expect(templatedIdentity(id, { workspace: '/app/workspace-profiles/demo-workspace', data: '/data', app: '/app' })).toMatchObject({ args: ['${workspace}'], cwd: '${workspace}' });
  });
});

describe('TrustStore', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const fresh = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-trust-store-'));
    dirs.push(d);
    return d;
  };

  it('keeps pins private, per profile; export and import move them on purpose, and every change is recorded', () => {
    const a = fresh();
    const recorded: TrustDecision[] = [];
    const store = new TrustStore(a, (d) => recorded.push(d));
    const id = launchIdentity(base, profile);
    store.approveLaunch('p1', 'files', id, identityHash(id), 'alice');
    expect(fs.statSync(store.file('p1')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(store.dir).mode & 0o777).toBe(0o700);
    expect(store.server('p1', 'files')?.identityHash).toBe(identityHash(id));
    expect(store.server('p2', 'files')).toBeUndefined();

    const b = fresh();
    const other = new TrustStore(b, (d) => recorded.push(d));
    expect(other.server('p1', 'files')).toBeUndefined(); // another data dir asks again
    other.importBundle(JSON.parse(JSON.stringify(store.exportBundle())), 'bob');
    expect(other.server('p1', 'files')?.approvedBy).toBe('alice');
    expect(recorded.map((d) => [d.action, d.by])).toEqual([
      ['approved', 'alice'],
      ['imported', 'bob'],
    ]);
    expect(() => other.importBundle({ gatehouseTrust: 1, exportedAt: 1, profiles: [{ version: 1, profile: '../evil', servers: {} }] }, 'bob')).toThrow("not a profile name: '../evil'");
    expect(() => other.importBundle({ nope: true }, 'bob')).toThrow('not a Gatehouse trust export');
  });
});
