// `auth: oauth` in profiles (docs/auth.md "In a profile"): what is accepted, what is refused with file:line, and
// that the client secret is a ${secret:…} that ends up in the redactor, never in the profile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProfileFile, ProfileError } from './loader';
import { resolveProfile } from './resolve';
import type { HttpServerSpec } from './types';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-oauth-profile-'));
  fs.mkdirSync(path.join(dir, 'ws'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const server = (lines: string[]) => {
  const file = path.join(dir, 'p.yaml');
  fs.writeFileSync(file, ['name: p', 'workspace: ./ws', 'servers:', '  remote:', '    url: https://mcp.example.com/mcp', ...lines.map((l) => `    ${l}`), ''].join('\n'));
  return file;
};
const secrets = { get: (n: string) => (n === 'CORP_SECRET' ? 'corp-client-secret-value' : undefined), describe: (n: string) => `test secret ${n}` };

function refused(file: string): string {
  try {
    resolveProfile(loadProfileFile(file), { dataDir: dir, env: {}, secrets });
  } catch (err) {
    if (err instanceof ProfileError) return err.message;
    throw err;
  }
  throw new Error('expected the profile to be refused');
}

describe('auth: oauth', () => {
  it('resolves client_id, scopes, redirect_port and a ${secret:…} client_secret (redacted)', () => {
    const p = resolveProfile(
      loadProfileFile(server(['auth: oauth', 'client_id: corp-client', 'client_secret: ${secret:CORP_SECRET}', 'scopes: [read, write]', 'redirect_port: 8765'])),
      { dataDir: dir, env: {}, secrets },
    );
    const s = p.servers[0] as HttpServerSpec;
    expect(s.oauth).toEqual({ clientId: 'corp-client', clientSecret: 'corp-client-secret-value', scopes: ['read', 'write'], redirectPort: 8765 });
    expect(p.redactor.redactString('x corp-client-secret-value y')).toBe('x «secret:CORP_SECRET» y');
    expect((resolveProfile(loadProfileFile(server(['auth: oauth'])), { dataDir: dir, env: {} }).servers[0] as HttpServerSpec).oauth).toEqual({});
    expect((resolveProfile(loadProfileFile(server([])), { dataDir: dir, env: {} }).servers[0] as HttpServerSpec).oauth).toBeUndefined();
  });

  it('refuses a literal client secret, OAuth settings without auth: oauth, and a second Authorization header', () => {
    expect(refused(server(['auth: oauth', 'client_secret: hunter2-literal']))).toMatch(/p\.yaml:7:\d+ .*client_secret must be a \$\{secret:NAME\} reference .*got a literal value/);
    expect(refused(server(['auth: oauth', 'client_secret: hunter2-literal']))).not.toContain('hunter2');
    expect(refused(server(['client_id: x']))).toMatch(/client_id needs `auth: oauth`/);
    expect(refused(server(['auth: oauth', 'headers:', '  Authorization: Bearer abc']))).toMatch(/auth: oauth sends its own Authorization header/);
    expect(refused(server(['auth: basic']))).toMatch(/auth/);
  });
});
