import { describe, expect, it } from 'vitest';
import type { PolicySpec } from '../profiles/types';
import { buildCapabilities, type CapabilityInputTool } from './capabilities';
import { compilePolicy } from './engine';

const workspace = '/home/u/project';
const spec: PolicySpec = {
  default: 'approve',
  approvalTimeoutS: 90,
  sampling: 'approve',
  rules: [
    { match: ['fs.read'], args: { path: { inside_workspace: true } }, decision: 'allow' },
    { match: ['*.delete_*'], decision: 'deny', reason: 'deleting is off' },
    { match: ['**'], annotations: { readOnlyHint: true }, decision: 'allow' },
  ],
};

const tools: CapabilityInputTool[] = [
  { canonical: 'fs.read', advertised: ['read_file', 'fs_read'], server: 'fs', available: true },
  { canonical: 'files.delete_file', advertised: ['delete_file'], server: 'files', available: true },
  { canonical: 'files.list', advertised: ['list'], server: 'files', annotations: { readOnlyHint: true }, available: true },
  { canonical: 'files.write', advertised: ['write'], server: 'files', title: 'Write', available: true },
  { canonical: 'web.fetch', advertised: ['fetch'], server: 'web', available: false, unavailableReason: 'server web exited (code 1) at 12:00:03' },
  { canonical: 'gatehouse.capabilities', advertised: ['gatehouse_capabilities'], server: 'gatehouse', available: true },
];

const build = (s: PolicySpec = spec, t: CapabilityInputTool[] = tools) => buildCapabilities({ tools: t, policy: compilePolicy(s, { workspace }), policySpec: s });

describe('buildCapabilities', () => {
  it('reports each tool, sorted, with status, reason and constraints', () => {
    const r = build();
    expect(r.contract_version).toBe('1');
    expect(r.approval_timeout_s).toBe(90);
    expect(r.capability_set_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.tools.map((t) => t.name)).toEqual(['files.delete_file', 'files.list', 'files.write', 'fs.read', 'gatehouse.capabilities', 'web.fetch']);
    const by = Object.fromEntries(r.tools.map((t) => [t.name, t]));
    expect(by['files.delete_file']).toMatchObject({ status: 'denied', reason: 'deleting is off', constraints: [] });
    expect(by['files.list']).toMatchObject({ status: 'callable' });
    expect(by['files.write']).toMatchObject({ status: 'needs_approval', title: 'Write', advertised_names: ['write'] });
    expect(by['fs.read']).toMatchObject({
      status: 'callable',
      advertised_names: ['fs_read', 'read_file'],
      constraints: ['callable when "path" stays inside the workspace (policy.rules[0])', 'otherwise needs approval (policy.default)'],
    });
    expect(by['gatehouse.capabilities']!.status).toBe('callable');
    expect(by['web.fetch']).toMatchObject({ status: 'unavailable', reason: 'server web exited (code 1) at 12:00:03' });
  });

  it('hashes the same configuration the same way, whatever the order or the runtime state', () => {
    const a = build();
    const reordered = [...tools].reverse().map((t) => ({ ...t, advertised: [...t.advertised].reverse() }));
    expect(build(spec, reordered).capability_set_hash).toBe(a.capability_set_hash);
    const webUp = tools.map((t) => (t.canonical === 'web.fetch' ? { ...t, available: true, unavailableReason: undefined } : t));
    expect(build(spec, webUp).capability_set_hash).toBe(a.capability_set_hash);
    expect(build({ ...structuredClone(spec) }).capability_set_hash).toBe(a.capability_set_hash);
  });

  it('changes the hash when the policy or the tool set changes', () => {
    const a = build().capability_set_hash;
    expect(build({ ...spec, default: 'deny' }).capability_set_hash).not.toBe(a);
    expect(build({ ...spec, approvalTimeoutS: 30 }).capability_set_hash).not.toBe(a);
    expect(build({ ...spec, rules: [...spec.rules].reverse() }).capability_set_hash).not.toBe(a);
    expect(build(spec, tools.slice(1)).capability_set_hash).not.toBe(a);
    const renamed = tools.map((t) => (t.canonical === 'files.write' ? { ...t, advertised: ['write_file'] } : t));
    expect(build(spec, renamed).capability_set_hash).not.toBe(a);
  });
});
