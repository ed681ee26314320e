// One sample per rule of the recommended preset through the prefilter and secretlint: a rule
// whose matches the prefilter would let pass unscanned fails here (the prefilter must have no
// false negatives). Samples are joined from pieces at run time so no scanner flags this file.
import { describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { findCredentials, mayHoldCredential } from './credential-rules';

const a = (n: number, alphabet = 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8') => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');
const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;

const SAMPLES: Array<[rule: string, text: string]> = [
  ['aws', `id ${['AKIA', 'QYLPMN5HHHFPZAM2'].join('')} here`],
  ['aws', `aws_secret_access_key = ${a(40)}`],
  ['github', `token ${['ghp', a(36)].join('_')}`],
  ['github', `token ${['github', 'pat', a(82)].join('_')}`],
  // (npm's `_authToken=` rule only looks at files named .npmrc: scanned text has no file name.)
  ['npm', ['npm', a(36)].join('_')],
  ['slack', [['xo', 'xb'].join(''), '1234567890', '1234567890', a(24)].join('-')],
  ['slack', `https://hooks.${'slack'}.com/services/T${a(8)}/B${a(8)}/${a(24)}`],
  ['openai', `${'sk'}-${a(20)}${'T3Blbk'}FJ${a(20)}`],
  ['anthropic', `${['sk', 'ant', 'api03'].join('-')}-${a(93)}AA`],
  ['linear', ['lin', 'api', a(40)].join('_')],
  ['sendgrid', `${'SG'}.${a(22)}.${a(43)}`],
  ['shopify', ['shpat', a(32, '0123456789abcdef')].join('_')],
  ['privatekey', PEM],
  ['basicauth', `https://deploy:${a(12)}@build.internal.test/`],
  ['database-connection-string', `postgres://admin:${a(12)}@db.internal.test:5432/app`],
];

describe('credential rules', () => {
  it.each(SAMPLES)('%s: the prefilter lets it through and the rule finds it', async (rule, text) => {
    expect(mayHoldCredential(text)).toBe(true);
    const found = await findCredentials(text);
    expect(found.map((f) => f.rule)).toContain(rule);
    for (const f of found) expect(f.end).toBeGreaterThan(f.start);
  });

  it('ordinary text does not reach secretlint', async () => {
    for (const text of ['hello world', '{"content":[{"type":"text","text":"42 files"}]}', 'a keyboard, an asian market, a task list']) expect(mayHoldCredential(text), text).toBe(false);
    expect(await findCredentials('hello world')).toEqual([]);
  });

  it('a secretlint-disable comment in the scanned text does not switch the scan off', async () => {
    const token = ['ghp', a(36)].join('_');
    for (const text of [`<!-- secretlint-disable -->\n${token}`, `${token} // secretlint-disable-line`, `// secretlint-disable-next-line\n${token}`]) {
      expect((await findCredentials(text)).map((f) => f.rule), text).toContain('github');
    }
  });
});
