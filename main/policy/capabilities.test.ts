import { describe, expect, it } from 'vitest';
import type { PolicySpec } from '../profiles/types';
import { buildCapabilities, HOLD_CODES, type CapabilityInputTool, type ToolHold } from './capabilities';
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
  { canonical: 'fs.read', advertised: ['read_file', 'fs_read'], server: 'fs' },
  { canonical: 'files.delete_file', advertised: ['delete_file'], server: 'files' },
  { canonical: 'files.list', advertised: ['list'], server: 'files', annotations: { readOnlyHint: true } },
  { canonical: 'files.write', advertised: ['write'], server: 'files', title: 'Write' },
  { canonical: 'web.fetch', advertised: ['fetch'], server: 'web', holds: [{ code: 'server_unavailable', reason: 'server web exited (code 1) at 12:00:03' }] },
  { canonical: 'gatehouse.capabilities', advertised: ['gatehouse_capabilities'], server: 'gatehouse' },
];

const build = (s: PolicySpec = spec, t: CapabilityInputTool[] = tools, holds: ToolHold[] = []) =>
  buildCapabilities({ tools: t, policy: compilePolicy(s, { workspace }), policySpec: s, holds });

describe('buildCapabilities', () => {
  it('reports each tool, sorted, with status, reason and constraints', () => {
    const r = build();
    expect(r.contract_version).toBe('2');
    expect(r).not.toHaveProperty('tools');
    expect(r.approval_timeout_s).toBe(90);
    expect(r.capability_set_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.tool_states.map((t) => t.name)).toEqual(['files.delete_file', 'files.list', 'files.write', 'fs.read', 'gatehouse.capabilities', 'web.fetch']);
    const by = Object.fromEntries(r.tool_states.map((t) => [t.name, t]));
    expect(by['files.delete_file']).toMatchObject({ status: 'denied', reason: 'deleting is off', constraints: [] });
    expect(by['files.list']).toMatchObject({ status: 'callable' });
    expect(by['files.write']).toMatchObject({ status: 'needs_approval', title: 'Write', advertised_names: ['write'] });
    expect(by['fs.read']).toMatchObject({
      status: 'callable',
      advertised_names: ['fs_read', 'read_file'],
      constraints: ['callable when "path" stays inside the workspace (policy.rules[0])', 'otherwise needs approval (policy.default)'],
    });
    expect(by['gatehouse.capabilities']!.status).toBe('callable');
    expect(by['web.fetch']).toMatchObject({ status: 'unavailable', policy_status: 'needs_approval', reason_code: 'server_unavailable', reason: 'server web exited (code 1) at 12:00:03' });
  });

  it('hashes the same configuration the same way, whatever the order or the runtime state', () => {
    const a = build();
    const reordered = [...tools].reverse().map((t) => ({ ...t, advertised: [...t.advertised].reverse() }));
    expect(build(spec, reordered).capability_set_hash).toBe(a.capability_set_hash);
    const webUp = tools.map((t) => (t.canonical === 'web.fetch' ? { ...t, holds: [] } : t));
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

  it('turns needs_approval into unavailable with the reason when nobody can approve, and leaves the rest', () => {
    const noApprover: ToolHold = { code: 'no_approver', reason: 'approval required but no approver is attached' };
    const r = build(spec, tools, [noApprover]);
    const by = Object.fromEntries(r.tool_states.map((t) => [t.name, t]));
    expect(by['files.write']).toMatchObject({ status: 'unavailable', policy_status: 'needs_approval', reason_code: 'no_approver', reason: noApprover.reason });
    // callable (even with constraints that lead to approval), denied and the capabilities tool are untouched
    expect(by['fs.read']).toMatchObject({ status: 'callable' });
    expect(by['fs.read']).not.toHaveProperty('reason_code');
    expect(by['files.delete_file']).toMatchObject({ status: 'denied', reason: 'deleting is off' });
    expect(by['gatehouse.capabilities']!.status).toBe('callable');
    // a tool's own hold comes first
    expect(by['web.fetch']).toMatchObject({ reason_code: 'server_unavailable' });
    expect(r.capability_set_hash).toBe(build().capability_set_hash);
  });

  it('never lets a hold turn a denied tool into something else, and knows each hold code\'s scope', () => {
    const held = tools.map((t) => ({ ...t, holds: [{ code: 'server_unavailable' as const, reason: 'down' }] }));
    const r = build(spec, held);
    const by = Object.fromEntries(r.tool_states.map((t) => [t.name, t]));
    expect(by['files.delete_file']!.status).toBe('denied');
    expect(by['files.list']).toMatchObject({ status: 'unavailable', policy_status: 'callable', reason: 'down' });
    expect(Object.entries(HOLD_CODES).every(([, scope]) => scope === 'all' || scope === 'approval')).toBe(true);
  });
});
