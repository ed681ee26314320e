import { describe, expect, it } from 'vitest';
import type { PolicyRule, PolicySpec } from '../profiles/types';
import { compilePolicy } from './engine';

const workspace = '/home/u/project';

function policy(rules: PolicyRule[], over: Partial<PolicySpec> = {}) {
  return compilePolicy({ default: 'approve', rules, approvalTimeoutS: 120, sampling: 'approve', ...over }, { workspace });
}

const call = (tool: string, args: unknown = {}, extra: { server?: string; annotations?: Record<string, unknown> } = {}) => ({
  tool,
  server: extra.server ?? tool.split('.')[0]!,
  args,
  annotations: extra.annotations,
});

describe('compilePolicy / decide', () => {
  it('falls back to the default, and maps allow/approve/deny', () => {
    expect(policy([]).decide(call('files.read'))).toMatchObject({ decision: 'APPROVAL', rule: 'policy.default' });
    expect(policy([], { default: 'allow' }).decide(call('files.read')).decision).toBe('ALLOW');
    expect(policy([], { default: 'deny' }).decide(call('files.read')).decision).toBe('DENY');
  });

  it('lets the first matching rule win', () => {
    const p = policy([
      { match: ['files.delete_*'], decision: 'deny', reason: 'never delete' },
      { match: ['files.*'], decision: 'allow' },
      { match: ['files.delete_all'], decision: 'allow' },
    ]);
    expect(p.decide(call('files.delete_all'))).toEqual({ decision: 'DENY', reason: 'never delete', rule: 'policy.rules[0]' });
    const r = p.decide(call('files.read'));
    expect(r).toMatchObject({ decision: 'ALLOW', rule: 'policy.rules[1]' });
    expect(r.reason).toContain('files.*');
    expect(p.decide(call('other.read')).rule).toBe('policy.default');
  });

  it('always allows the capabilities tool', () => {
    const p = policy([{ match: ['**'], decision: 'deny' }], { default: 'deny' });
    expect(p.decide(call('gatehouse.capabilities')).decision).toBe('ALLOW');
    expect(p.decide(call('fs.read')).decision).toBe('DENY');
  });

  it('accepts a single glob string as the raw schema allows', () => {
    const p = policy([{ match: 'fs.*' as unknown as string[], decision: 'deny' }]);
    expect(p.decide(call('fs.read')).decision).toBe('DENY');
  });

  it('restricts a rule to its servers', () => {
    const p = policy([{ match: ['*.read'], servers: ['files'], decision: 'allow' }]);
    expect(p.decide(call('files.read')).decision).toBe('ALLOW');
    expect(p.decide(call('web.read')).decision).toBe('APPROVAL');
  });

  it('needs every annotation condition, and a missing hint never satisfies one', () => {
    const p = policy([
      { match: ['**'], annotations: { readOnlyHint: true }, decision: 'allow' },
      { match: ['**'], annotations: { destructiveHint: false, openWorldHint: false }, decision: 'allow', reason: 'local and safe' },
    ]);
    expect(p.decide(call('s.t', {}, { annotations: { readOnlyHint: true } })).decision).toBe('ALLOW');
    expect(p.decide(call('s.t', {}, { annotations: { readOnlyHint: false } })).decision).toBe('APPROVAL');
    expect(p.decide(call('s.t')).decision).toBe('APPROVAL');
    expect(p.decide(call('s.t', {}, { annotations: { destructiveHint: false } })).decision).toBe('APPROVAL');
    expect(p.decide(call('s.t', {}, { annotations: { destructiveHint: false, openWorldHint: false } })).reason).toBe('local and safe');
    expect(p.decide(call('s.t', {}, { annotations: { readOnlyHint: 'true' } })).decision).toBe('APPROVAL');
  });

  describe('args constraints', () => {
    const p = policy([
      { match: ['fs.read', 'fs.write'], args: { path: { inside_workspace: true } }, decision: 'allow' },
      { match: ['fs.write'], args: { path: { inside_workspace: false } }, decision: 'deny', reason: 'writes stay in the workspace' },
      { match: ['process.exec'], args: { command: { pattern: 'git (status|log)( .*)?' } }, decision: 'allow' },
      { match: ['process.exec'], args: { command: { equals: 'rm' }, force: { equals: true } }, decision: 'deny' },
      { match: ['repo.apply_patch'], args: { files: { inside_workspace: true } }, decision: 'allow' },
    ]);

    it('inside_workspace: relative, `..`, absolute', () => {
      expect(p.decide(call('fs.read', { path: 'src/a.ts' })).decision).toBe('ALLOW');
      expect(p.decide(call('fs.read', { path: `${workspace}/src/../a.ts` })).decision).toBe('ALLOW');
      expect(p.decide(call('fs.read', { path: '../secrets' })).decision).toBe('APPROVAL');
      expect(p.decide(call('fs.read', { path: '/etc/passwd' })).decision).toBe('APPROVAL');
      expect(p.decide(call('fs.write', { path: 'src/../../x' }))).toMatchObject({ decision: 'DENY', rule: 'policy.rules[1]' });
    });

    it('inside_workspace refuses NUL, drive and UNC forms (and they count as outside)', () => {
      for (const bad of ['a\0b', 'C:\\x', 'D:rel', '\\\\host\\share\\x', '//host/share/x', '~/x']) {
        expect(p.decide(call('fs.read', { path: bad })).decision).toBe('APPROVAL');
        expect(p.decide(call('fs.write', { path: bad })).decision).toBe('DENY');
      }
    });

    it('inside_workspace over arrays: all inside, none missing', () => {
      expect(p.decide(call('repo.apply_patch', { files: ['a', 'b/c'] })).decision).toBe('ALLOW');
      expect(p.decide(call('repo.apply_patch', { files: ['a', '../b'] })).decision).toBe('APPROVAL');
      expect(p.decide(call('repo.apply_patch', { files: [] })).decision).toBe('APPROVAL');
      expect(p.decide(call('repo.apply_patch', { files: ['a', 3] })).decision).toBe('APPROVAL');
    });

    it('a missing or non-object argument never satisfies a constraint', () => {
      expect(p.decide(call('fs.read', {})).decision).toBe('APPROVAL');
      expect(p.decide(call('fs.write', {})).decision).toBe('APPROVAL'); // not DENY either: neither rule applies
      expect(p.decide(call('fs.read', undefined)).decision).toBe('APPROVAL');
      expect(p.decide(call('fs.read', ['src/a.ts'])).decision).toBe('APPROVAL');
      expect(p.decide(call('fs.read', Object.create({ path: 'a' }))).decision).toBe('APPROVAL'); // inherited keys do not count
    });

    it('pattern is a full match on the string form', () => {
      expect(p.decide(call('process.exec', { command: 'git status' })).decision).toBe('ALLOW');
      expect(p.decide(call('process.exec', { command: 'git log --oneline' })).decision).toBe('ALLOW');
      expect(p.decide(call('process.exec', { command: 'git status --short; rm -rf /' })).decision).toBe('ALLOW'); // `.*` is what the rule said
      expect(p.decide(call('process.exec', { command: 'xgit status' })).decision).toBe('APPROVAL');
      expect(p.decide(call('process.exec', { command: 'git statusx' })).decision).toBe('APPROVAL');
      expect(p.decide(call('process.exec', { command: 'git log -1\nrm -rf /' })).decision).toBe('ALLOW'); // `.` crosses newlines (flag s)
      const q = policy([{ match: ['a.b'], args: { n: { pattern: '[0-9]+' }, o: { pattern: '\\{"x":1\\}' } }, decision: 'allow' }]);
      expect(q.decide(call('a.b', { n: 42, o: { x: 1 } })).decision).toBe('ALLOW');
    });

    it('equals compares canonical JSON and needs every constraint', () => {
      expect(p.decide(call('process.exec', { command: 'rm', force: true })).decision).toBe('DENY');
      expect(p.decide(call('process.exec', { command: 'rm', force: false })).decision).toBe('APPROVAL');
      expect(p.decide(call('process.exec', { command: 'rm' })).decision).toBe('APPROVAL');
      const q = policy([{ match: ['a.b'], args: { o: { equals: { x: 1, y: [1, 2] } } }, decision: 'allow' }]);
      expect(q.decide(call('a.b', { o: { y: [1, 2], x: 1 } })).decision).toBe('ALLOW');
      expect(q.decide(call('a.b', { o: { y: [2, 1], x: 1 } })).decision).toBe('APPROVAL');
    });
  });

  describe('fails closed', () => {
    it('a bad regex denies the calls that reach its rule, and only those', () => {
      const p = policy([
        { match: ['fs.read'], args: { path: { inside_workspace: true }, mode: { pattern: '(' } }, decision: 'allow' },
        { match: ['fs.*'], decision: 'allow' },
      ]);
      expect(p.problems).toHaveLength(1);
      expect(p.problems[0]).toContain('policy.rules[0].args.mode.pattern');
      const r = p.decide(call('fs.read', { path: '../outside', mode: 'x' })); // even where an earlier constraint fails
      expect(r.decision).toBe('DENY');
      expect(r.reason).toMatch(/^policy error: policy\.rules\[0\]\.args\.mode\.pattern: invalid regular expression/);
      expect(r.rule).toBe('policy.rules[0]');
      expect(p.decide(call('fs.list')).decision).toBe('ALLOW');
    });

    it('a throwing argument (hostile toJSON) denies', () => {
      const p = policy([{ match: ['a.b'], args: { o: { equals: 1 } }, decision: 'deny' }], { default: 'allow' });
      const args = { o: { toJSON: () => { throw new Error('boom'); } } };
      expect(p.decide(call('a.b', args))).toMatchObject({ decision: 'DENY', reason: 'policy error: boom' });
    });

    it('a broken decision value denies', () => {
      const p = policy([{ match: ['a.b'], decision: 'maybe' as never }]);
      expect(p.decide(call('a.b')).decision).toBe('DENY');
      expect(p.decide(call('a.b')).reason).toContain('unknown decision "maybe"');
      expect(policy([], { sampling: 'nope' as never }).decideSampling('s').decision).toBe('DENY');
    });

    it('keeps reasons on one line', () => {
      const p = policy([{ match: ['a.b'], decision: 'deny', reason: 'line one\nline two' }]);
      expect(p.decide(call('a.b')).reason).toBe('line one line two');
    });
  });

  it('decides sampling from policy.sampling', () => {
    expect(policy([]).decideSampling('everything')).toMatchObject({ decision: 'APPROVAL', rule: 'policy.sampling' });
    expect(policy([], { sampling: 'allow' }).decideSampling('x').decision).toBe('ALLOW');
    const d = policy([], { sampling: 'deny' }).decideSampling('everything');
    expect(d.decision).toBe('DENY');
    expect(d.reason).toContain('everything');
  });
});

describe('outlook (decision without arguments)', () => {
  it('reports a static rule as it is', () => {
    const p = policy([{ match: ['fs.delete'], decision: 'deny', reason: 'no' }]);
    expect(p.outlook({ tool: 'fs.delete', server: 'fs' })).toEqual({ decision: 'DENY', reachable: ['DENY'], reason: 'no', rule: 'policy.rules[0]', constraints: [] });
  });

  it('reports the most permissive reachable verdict with constraints', () => {
    const p = policy([
      { match: ['fs.write'], args: { path: { inside_workspace: false } }, decision: 'deny' },
      { match: ['fs.*'], args: { path: { inside_workspace: true } }, decision: 'allow' },
    ]);
    const o = p.outlook({ tool: 'fs.write', server: 'fs' });
    expect(o.decision).toBe('ALLOW');
    expect(o.reachable).toEqual(['ALLOW', 'APPROVAL', 'DENY']);
    expect(o.constraints).toEqual([
      'denied when "path" points outside the workspace (policy.rules[0])',
      'callable when "path" stays inside the workspace (policy.rules[1])',
      'otherwise needs approval (policy.default)',
    ]);
    expect(o.reason).toBe('depends on the arguments: callable when "path" stays inside the workspace');
  });

  it('stops at the first rule without argument constraints', () => {
    const p = policy([
      { match: ['x.y'], args: { a: { equals: 1 } }, decision: 'allow' },
      { match: ['x.*'], decision: 'deny' },
      { match: ['x.y'], decision: 'allow' },
    ]);
    expect(p.outlook({ tool: 'x.y', server: 'x' })).toMatchObject({ decision: 'ALLOW', reachable: ['ALLOW', 'DENY'] });
    expect(p.outlook({ tool: 'x.z', server: 'x' })).toMatchObject({ decision: 'DENY', constraints: [] });
  });

  it('bounds the constraint list', () => {
    const rules: PolicyRule[] = Array.from({ length: 9 }, (_, i) => ({ match: ['x.y'], args: { ['a'.repeat(200) + i]: { equals: i } }, decision: 'allow' as const }));
    const o = policy(rules).outlook({ tool: 'x.y', server: 'x' });
    expect(o.constraints).toHaveLength(5);
    expect(o.constraints[3]).toBe('… and 6 more conditions');
    expect(o.constraints[4]).toBe('otherwise needs approval (policy.default)');
    for (const c of o.constraints) expect(c.length).toBeLessThanOrEqual(160);
  });
});
