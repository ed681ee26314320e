import { describe, expect, it } from 'vitest';
import { EnvSecretProvider } from '../secrets/provider';
import { expandString, type ExpandContext } from './expand';

const env = { A: 'alpha', EMPTY: '', S: 'sekrit-value' };
const ctx: ExpandContext = { workspace: '/ws', dataDir: '/data', env, secrets: new EnvSecretProvider(env) };

describe('expandString', () => {
  it.each([
    ['plain text', 'plain text'],
    ['${workspace}/src', '/ws/src'],
    ['${data}', '/data'],
    ['${env:A}-${env:A}', 'alpha-alpha'],
    ['${env:MISSING:-}', ''],
    ['${env:MISSING:-http://h:80/x}', 'http://h:80/x'],
    ['${env:EMPTY:-fallback}', 'fallback'],
    ['${env:EMPTY}', ''],
    ['$${workspace}', '${workspace}'],
    // $${ is the escape wherever it starts, scanning left to right.
    ['$$${workspace}', '$${workspace}'],
    ['cost: $5, $HOME, $', 'cost: $5, $HOME, $'],
    ['}{', '}{'],
  ])('%s → %s', (input, expected) => {
    const r = expandString(input, ctx);
    expect(r.problems).toEqual([]);
    expect(r.value).toBe(expected);
  });

  it('reports the secrets it used, by name', () => {
    const r = expandString('Bearer ${secret:S}', ctx);
    expect(r.value).toBe('Bearer sekrit-value');
    expect(r.secrets).toEqual([{ name: 'S', value: 'sekrit-value' }]);
  });

  it('problems carry the token as written and never a value', () => {
    const r = expandString('${secret:S} ${secret:NOPE} ${nope}', ctx);
    expect(r.problems.map((p) => p.token)).toEqual(['${secret:NOPE}', '${nope}']);
    expect(JSON.stringify(r.problems)).not.toContain('sekrit-value');
  });
});
