// The redactor finds a configured secret in each form it can take (secret-forms.ts), also when
// an escape sequence or an invisible character splits it, and leaves clean values untouched
// (the very same object: the downstream boundary runs it on every message).
import { describe, expect, it } from 'vitest';
import { Redactor } from './redactor';

const KEY = 'ghp_x9Y8z7W6v5U4t3S2r1';
const ODD = 'p"ss\\w0rd/with spaces';

function redactor(): Redactor {
  const r = new Redactor();
  r.add('TOKEN', KEY);
  r.add('DB_PASS', ODD);
  return r;
}

describe('Redactor', () => {
  it('replaces the value, its JSON-escaped forms and its URL-encoded form', () => {
    const r = redactor();
    expect(r.redactString(`a ${KEY} b`)).toBe('a «secret:TOKEN» b');
    expect(r.redactString(JSON.stringify({ text: `pass=${ODD}` }))).toBe('{"text":"pass=«secret:DB_PASS»"}');
    expect(r.redactString(JSON.stringify(JSON.stringify({ p: ODD })))).not.toContain('w0rd');
    expect(r.redactString(`?p=${encodeURIComponent(ODD)}&x=1`)).toBe('?p=«secret:DB_PASS»&x=1');
  });

  it('replaces base64 of the value at any of the three byte offsets inside a longer blob', () => {
    const r = redactor();
    for (const before of ['', 'a', 'ab', 'abc']) {
      const blob = Buffer.from(`${before}${KEY} and more`).toString('base64');
      expect(r.redactString(blob), before).toContain('«secret:TOKEN»');
    }
  });

  it('finds a value split by ANSI escapes or invisible characters, and drops them only then', () => {
    const r = redactor();
    expect(r.redactString(`tok=${KEY.slice(0, 6)}\u001b[31m${KEY.slice(6)}\u001b[0m!`)).toBe('tok=«secret:TOKEN»!');
    expect(r.redactString(`tok=${KEY.slice(0, 3)}\u200B${KEY.slice(3)}`)).toBe('tok=«secret:TOKEN»');
    expect(r.redactString('\u001b[31mred\u001b[0m text')).toBe('\u001b[31mred\u001b[0m text');
  });

  it('holds() says whether redactJson would change a value: any string, keys, split forms', () => {
    const r = redactor();
    expect(r.holds({ a: [{ b: 'x' }], c: 1, d: null })).toBe(false);
    expect(r.holds({ a: [{ b: `k ${KEY}` }] })).toBe(true);
    expect(r.holds({ [encodeURIComponent(ODD)]: 1 })).toBe(true);
    // Split by an escape: not a plain match, and still held (redactJson redacts it).
    const split = { t: `tok=${KEY.slice(0, 6)}\u001b[31m${KEY.slice(6)}` };
    expect(r.holds(split)).toBe(true);
    expect(r.redactJson(split)).not.toBe(split);
    expect(new Redactor().holds({ t: KEY })).toBe(false);
  });

  it('redactJson returns the same objects where nothing was redacted', () => {
    const r = redactor();
    const clean = { a: [{ b: 'x' }], c: 1, d: null };
    expect(r.redactJson(clean)).toBe(clean);
    const dirty = { keep: { b: 'x' }, leak: [`k ${KEY}`], [KEY]: true };
    const out = r.redactJson(dirty);
    expect(out).toEqual({ keep: { b: 'x' }, leak: ['k «secret:TOKEN»'], '«secret:TOKEN»': true });
    expect(out.keep).toBe(dirty.keep);
    expect(dirty.leak[0]).toContain(KEY);
  });

  it('ignores values shorter than four characters', () => {
    const r = new Redactor();
    r.add('SHORT', 'abc');
    expect(r.size).toBe(0);
    expect(r.redactString('abc')).toBe('abc');
  });
});
