// Policy for resources/read and prompts/get (docs/gateway.md "Resources and prompts under policy").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyRule, PolicySpec } from '../profiles/types';
import { loadProfileFile, ProfileError } from '../profiles/loader';
import { policySpecOf } from '../profiles/resolve';
import { PolicySchema } from '../profiles/schema';
import { compilePolicy, uriForPolicy } from './engine';
import { replayCalls } from './replay';

const workspace = '/home/u/project';

function policy(rules: PolicyRule[], over: Partial<PolicySpec> = {}) {
  return compilePolicy({ default: 'approve', rules, approvalTimeoutS: 120, sampling: 'approve', ...over }, { workspace });
}

const read = (uri: string, server = 'everything', agent?: string) => ({ uri, server, ...(agent ? { agent } : {}) });

describe('resource rules', () => {
  const p = policy([
    { match: [], resource: ['file:///secret/**'], decision: 'deny', reason: 'secrets stay put' },
    { match: [], resource: ['test://static/resource/*'], servers: ['everything'], decision: 'approve' },
    { match: ['**'], decision: 'deny' },
  ]);

  it('match URI globs: ** crosses segments, * stays in one', () => {
    expect(p.decideResource(read('file:///secret/a/b/key'))).toEqual({ decision: 'DENY', reason: 'secrets stay put', rule: 'policy.rules[0]' });
    expect(p.decideResource(read('test://static/resource/7'))).toMatchObject({ decision: 'APPROVAL', rule: 'policy.rules[1]' });
    expect(p.decideResource(read('test://static/resource/7/deeper'))).toMatchObject({ decision: 'ALLOW', rule: 'policy.resources' });
  });

  it('keep today\'s behaviour by default: a read no rule matches is allowed, even under a deny-all tool rule', () => {
    expect(p.decideResource(read('file:///public/readme'))).toEqual({ decision: 'ALLOW', reason: 'no resource rule matched; allowed by policy.resources', rule: 'policy.resources' });
    expect(policy([], { resources: 'approve' }).decideResource(read('x://y')).decision).toBe('APPROVAL');
    expect(policy([], { resources: 'deny' }).decideResource(read('x://y')).decision).toBe('DENY');
  });

  it('cannot be walked around with dot segments or %-escapes', () => {
    expect(p.decideResource(read('file:///public/../secret/key')).decision).toBe('DENY');
    expect(p.decideResource(read('file:///public/%2e%2e/secret/key')).decision).toBe('DENY');
    expect(p.decideResource(read('file:///%73ecret/key')).decision).toBe('DENY');
    expect(p.decideResource(read('FILE:///secret/key')).decision).toBe('DENY');
    expect(uriForPolicy('not a uri')).toBe('not a uri');
  });

  it('honour servers and agents', () => {
    expect(p.decideResource(read('test://static/resource/7', 'other')).decision).toBe('ALLOW');
    const byAgent = policy([{ match: [], resource: ['**'], agents: ['claude'], decision: 'deny' }]);
    expect(byAgent.decideResource(read('x://y', 's', 'claude')).decision).toBe('DENY');
    expect(byAgent.decideResource(read('x://y', 's', 'codex')).decision).toBe('ALLOW');
    expect(byAgent.decideResource(read('x://y', 's')).decision).toBe('ALLOW');
  });

  it('never decide a tool call, and tool rules never decide a read', () => {
    const q = policy([{ match: [], resource: ['**'], decision: 'deny' }], { default: 'allow' });
    expect(q.decide({ tool: 'everything.echo', server: 'everything', args: {} }).decision).toBe('ALLOW');
    expect(q.outlook({ tool: 'everything.echo', server: 'everything' }).decision).toBe('ALLOW');
  });
});

describe('prompt rules', () => {
  const p = policy([
    { match: [], prompt: ['args-prompt'], args: { city: { pattern: 'Paris|Rome' } }, decision: 'allow' },
    { match: [], prompt: ['args-prompt'], decision: 'approve' },
    { match: [], prompt: ['other.*'], decision: 'deny' },
  ], { prompts: 'deny' });

  it('match the prompt\'s own or canonical name, with argument constraints', () => {
    expect(p.decidePrompt({ name: 'args-prompt', server: 'everything', args: { city: 'Paris' } })).toMatchObject({ decision: 'ALLOW', rule: 'policy.rules[0]' });
    expect(p.decidePrompt({ name: 'args-prompt', server: 'everything', args: { city: 'Oslo' } })).toMatchObject({ decision: 'APPROVAL', rule: 'policy.rules[1]' });
    expect(p.decidePrompt({ name: 'simple', server: 'other', args: {} })).toMatchObject({ decision: 'DENY', rule: 'policy.rules[2]' });
    expect(p.decidePrompt({ name: 'simple', server: 'everything', args: {} })).toMatchObject({ decision: 'DENY', rule: 'policy.prompts' });
  });

  it('fail closed on a broken pattern', () => {
    const q = policy([{ match: [], prompt: ['**'], args: { a: { pattern: '(' } }, decision: 'allow' }]);
    expect(q.decidePrompt({ name: 'x', server: 's', args: { a: 'x' } })).toMatchObject({ decision: 'DENY', rule: 'policy.rules[0]' });
    expect(q.decidePrompt({ name: 'x', server: 's', args: { a: 'x' } }).reason).toMatch(/^policy error:/);
  });
});

describe('the profile form', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-policy-resources-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function errorsOf(lines: string[]): string[] {
    const file = path.join(dir, 'demo.yaml');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    try {
      loadProfileFile(file);
    } catch (err) {
      expect(err).toBeInstanceOf(ProfileError);
      return (err as ProfileError).message.split('\n').map((l) => l.replace(`${dir}${path.sep}`, ''));
    }
    throw new Error('expected the profile to be refused');
  }

  it('takes resource and prompt rules and the per-kind defaults, allow when left out', () => {
    const spec = policySpecOf(PolicySchema.parse({ rules: [{ resource: 'file:///secret/**', decision: 'deny' }, { prompt: ['a', 'b'], decision: 'approve' }] }));
    expect(spec.rules).toEqual([
      { match: [], resource: ['file:///secret/**'], decision: 'deny' },
      { match: [], prompt: ['a', 'b'], decision: 'approve' },
    ]);
    expect([spec.resources, spec.prompts]).toEqual(['allow', 'allow']);
    expect(policySpecOf(PolicySchema.parse({ resources: 'approve', prompts: 'deny' }))).toMatchObject({ resources: 'approve', prompts: 'deny' });
  });

  it('refuses a broken rule with the file, the line and what was expected', () => {
    const head = ['name: demo', 'policy:', '  rules:'];
    expect(errorsOf([...head, '    - resource: "file:///x/**"', '      match: "a.*"', '      decision: deny'])).toEqual([
      'demo.yaml:4:17 policy.rules[0].resource: a rule is about one kind: match (tools), resource or prompt, got match and resource',
    ]);
    expect(errorsOf([...head, '    - decision: deny'])).toEqual(['demo.yaml:4:7 policy.rules[0]: a rule needs one of match (tool names), resource (URIs) or prompt (prompt names)']);
    expect(errorsOf([...head, '    - resource: "x://**"', '      args: { a: { equals: 1 } }', '      decision: deny'])).toEqual([
      'demo.yaml:5:13 policy.rules[0].args: a resource rule has no arguments to constrain (write the URI glob in resource)',
    ]);
    expect(errorsOf([...head, '    - prompt: p', '      decision: maybe'])).toEqual(["demo.yaml:5:17 policy.rules[0].decision: expected one of allow, approve, deny, got 'maybe'"]);
    expect(errorsOf(['name: demo', 'policy:', '  resources: sometimes'])).toEqual(["demo.yaml:3:14 policy.resources: expected one of allow, approve, deny, got 'sometimes'"]);
  });
});

describe('gatehouse policy test over reads and prompts', () => {
  it('replays recorded reads and prompt gets through the rules of their kind', () => {
    const p = policy([
      { match: [], resource: ['file:///secret/**'], decision: 'deny' },
      { match: [], prompt: ['everything.args-prompt'], decision: 'approve' },
    ]);
    const r = replayCalls(p, [
      { seq: 1, ts: 1, session: 's', tool: 'resource:file:///secret/k', server: 'files', args: { uri: 'file:///secret/k' }, decision: 'ALLOW', rule: 'policy.resources' },
      { seq: 2, ts: 2, session: 's', tool: 'prompt:everything.args-prompt', server: 'everything', args: { city: 'x' }, decision: 'ALLOW', rule: 'policy.prompts' },
      { seq: 3, ts: 3, session: 's', tool: 'resource:file:///public/k', server: 'files', args: { uri: 'file:///public/k' }, decision: 'ALLOW', rule: 'policy.resources' },
    ]);
    expect(r.replayed).toBe(3);
    expect(r.changed.map((c) => [c.call.seq, c.after.decision, c.after.rule])).toEqual([
      [1, 'DENY', 'policy.rules[0]'],
      [2, 'APPROVAL', 'policy.rules[1]'],
    ]);
    expect(r.totals).toEqual({ 'ALLOW → DENY': 1, 'ALLOW → APPROVAL': 1 });
  });
});
