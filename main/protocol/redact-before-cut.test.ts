// Redaction applies before any cut (docs/gateway.md "Redaction before any cut"): a stderr line over the length limit, and a
// stdout fault line over the shown-text limit, never keep a fragment of a secret, even one
// that straddles the cut or arrives split across reads.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../secrets/redactor';
import { LineSplitter } from './line-splitter';
import { FramedStreamTransport } from './framed-stream-transport';
import { MAX_FAULT_RAW_BYTES, type DecodedFault } from './framing';

const SECRET = 's3cr3t-canary-value-0123456789';
const redactor = (): Redactor => {
  const r = new Redactor();
  r.add('API_TOKEN', SECRET);
  return r;
};
const fragments = (text: string): string[] => {
  // Any 6+ character piece of the secret at a cut edge counts as a leak.
  const out: string[] = [];
  for (let n = 6; n < SECRET.length; n++) {
    if (text.endsWith(SECRET.slice(0, n) + '…') || text.endsWith(SECRET.slice(0, n))) out.push(SECRET.slice(0, n));
    if (text.startsWith('…' + SECRET.slice(-n)) || text.startsWith(SECRET.slice(-n))) out.push(SECRET.slice(-n));
  }
  return out;
};

describe('stderr lines', () => {
  it.each([8 * 1024 - 10, 8 * 1024 - 1, 8 * 1024, 8 * 1024 + 5])('a secret straddling the 8 KB cut at offset %i is replaced in every piece (one chunk)', (at) => {
    const s = new LineSplitter({ redactor: redactor() });
    const line = 'a'.repeat(at) + SECRET + 'b'.repeat(9000) + '\n';
    const pieces = s.push(Buffer.from(line));
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) {
      expect(p).not.toContain(SECRET);
      expect(fragments(p)).toEqual([]);
    }
    expect(pieces.join('')).toContain('«secret:API_TOKEN»');
  });

  it('a secret split across reads, while the line is still streaming past the limit', () => {
    const s = new LineSplitter({ redactor: redactor() });
    const pieces: string[] = [];
    const text = 'a'.repeat(8 * 1024 - 7) + SECRET + 'c'.repeat(20_000);
    // Tiny reads: the cut happens before the secret is complete.
    for (let i = 0; i < text.length; i += 5) pieces.push(...s.push(Buffer.from(text.slice(i, i + 5))));
    pieces.push(...s.end());
    for (const p of pieces) {
      expect(p).not.toContain(SECRET);
      expect(fragments(p)).toEqual([]);
    }
    expect(pieces.join('')).toContain('«secret:API_TOKEN»');
  });

  it('without a secret the pieces are as before', () => {
    const s = new LineSplitter({ redactor: redactor() });
    const pieces = s.push(Buffer.from('z'.repeat(20_000) + '\n'));
    expect(pieces.join('').replace(/…/g, '')).toBe('z'.repeat(20_000));
  });
});

describe('stdout fault lines', () => {
  it.each([MAX_FAULT_RAW_BYTES - 60, MAX_FAULT_RAW_BYTES - 45, MAX_FAULT_RAW_BYTES - 10])('a non-JSON line with a secret at byte %i keeps no fragment of it after the cut', async (at) => {
    const out = new PassThrough();
    const r = redactor();
    const seen: DecodedFault[] = [];
    const t = new FramedStreamTransport(out, new PassThrough(), { framing: 'line', redact: (x) => r.redactString(x), observer: { fault: (f) => seen.push(f) } });
    await t.start();
    out.write('x'.repeat(at) + SECRET + 'y'.repeat(3000) + '\n');
    await new Promise((res) => setImmediate(res));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.raw).not.toContain(SECRET);
    const shown = seen[0]!.raw.replace(/ … \[truncated, \d+ bytes\]$/, '');
    expect(fragments(shown)).toEqual([]);
    expect(Buffer.byteLength(seen[0]!.raw)).toBeLessThanOrEqual(MAX_FAULT_RAW_BYTES);
  });

  it('an oversized line with a secret near its head: redacted before the head is cut', async () => {
    const out = new PassThrough();
    const r = redactor();
    const seen: DecodedFault[] = [];
    const t = new FramedStreamTransport(out, new PassThrough(), { framing: 'line', maxMessageBytes: 10_000, redact: (x) => r.redactString(x), observer: { fault: (f) => seen.push(f) } });
    await t.start();
    out.write('{"x":"' + 'q'.repeat(MAX_FAULT_RAW_BYTES - 50) + SECRET + 'w'.repeat(50_000) + '"}\n');
    await new Promise((res) => setImmediate(res));
    expect(seen[0]!.reason).toBe('message exceeds 10000 bytes');
    expect(seen[0]!.raw).not.toContain(SECRET.slice(0, 12));
  });
});
