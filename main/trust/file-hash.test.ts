import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashFileAsync, hashFileSync } from './file-hash';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-file-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hashFileSync', () => {
  // It reads through a 1 MiB buffer (so a 99 MB node binary stays out of the peak RSS): a file of
  // several chunks and a partial last one must hash to the sha256 of its bytes.
  it.each([0, 1, 1024 * 1024, 3 * 1024 * 1024 + 12345])('hashes a %d-byte file as sha256 of its bytes, like the stream', async (size) => {
    const bytes = randomBytes(size);
    const file = path.join(dir, `f${size}`);
    writeFileSync(file, bytes);
    const want = createHash('sha256').update(bytes).digest('hex');
    expect(hashFileSync(file)).toBe(want);
    expect(await hashFileAsync(file)).toBe(want);
  });

  it('throws for a file that does not exist', () => {
    expect(() => hashFileSync(path.join(dir, 'missing'))).toThrow(/ENOENT/);
  });
});
