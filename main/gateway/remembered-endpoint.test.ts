// The port and token a profile keeps across launches (remembered-endpoint.ts), on a real data dir.
import { afterEach, describe, expect, it } from 'vitest';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MemorySecretStore } from '../auth/secret-store';
import { tempDir } from '../../tests/support/temp';
import { rememberedPort, rememberedToken, rememberPort } from './remembered-endpoint';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dataDir(): string {
  const t = tempDir('gatehouse-remembered-');
  cleanups.push(t.cleanup);
  return path.join(t.dir, 'data');
}

describe('remembered endpoint', () => {
  it('keeps one port per profile file, in a file only its owner reads', () => {
    const dir = dataDir();
    expect(rememberedPort(dir, '/p/a.yaml')).toBeUndefined();
    rememberPort(dir, '/p/a.yaml', 41000);
    rememberPort(dir, '/p/b.yaml', 41001);
    expect(rememberedPort(dir, '/p/a.yaml')).toBe(41000);
    expect(rememberedPort(dir, '/p/./b.yaml')).toBe(41001);
    expect(statSync(path.join(dir, 'gateway-ports.json')).mode & 0o777).toBe(0o600);
  });

  it('a damaged file or a port out of range costs a new port, never a failed launch', () => {
    const dir = dataDir();
    rememberPort(dir, '/p/a.yaml', 41000);
    writeFileSync(path.join(dir, 'gateway-ports.json'), '{"/p/a.yaml": 70000, "/p/b.yaml": "41002", "/p/c.yaml": 41003');
    expect(rememberedPort(dir, '/p/a.yaml')).toBeUndefined();
    writeFileSync(path.join(dir, 'gateway-ports.json'), '{"/p/a.yaml": 70000, "/p/b.yaml": "41002", "/p/c.yaml": 41003}');
    expect(rememberedPort(dir, '/p/a.yaml')).toBeUndefined();
    expect(rememberedPort(dir, '/p/b.yaml')).toBeUndefined();
    expect(rememberedPort(dir, '/p/c.yaml')).toBe(41003);
  });

  it('generates a token once per profile and hands back the same one', () => {
    const store = new MemorySecretStore();
    const a = rememberedToken(store, '/p/a.yaml');
    expect(a).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(rememberedToken(store, '/p/a.yaml')).toBe(a);
    expect(rememberedToken(store, '/p/b.yaml')).not.toBe(a);
    expect(store.keys()).toEqual(['gateway-token:/p/a.yaml', 'gateway-token:/p/b.yaml']);
  });
});
