// Upstream eras (docs/gateway.md "Upstream eras"): each HTTP server's era is found once and remembered in the data dir.
// A new-era server is probed with `server/discover` on its first start only; the next launch
// adopts the remembered discovery with zero round trips. An old-era server is probed once and
// then spoken to as before, without a probe. A remembered verdict that stops matching (the
// server at that URL changed era) is forgotten and the server probed again. The upstreams are
// real: the SDK v2 new-era fixture and the SDK v1 conformance fixture, behind a counting proxy
// that records which methods reached them.
import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Host } from '../../main/host';
import { UpstreamEras, OLD_ERA_HORIZON_MS } from '../../main/supervisor/upstream-era';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml } from '../support/supervisor';
import { startFixtureUrl } from '../support/fixture-url';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function startFixture(file: string, args: string[]): Promise<string> {
  const fixture = await startFixtureUrl(file, args);
  cleanups.push(() => void fixture.child.kill('SIGKILL'));
  return fixture.url;
}

/** A loopback proxy that forwards everything to `target` (its path kept) and records each JSON-RPC method it saw. */
async function countingProxy(target: string): Promise<{ url: string; methods: string[]; retarget(url: string): void }> {
  const methods: string[] = [];
  let to = new URL(target);
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    try {
      const msg = JSON.parse(body.toString('utf8')) as { method?: string };
      if (msg.method) methods.push(msg.method);
    } catch {}
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    try {
      const up = await fetch(to, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body, signal: abort.signal });
      res.writeHead(up.status, Object.fromEntries(up.headers));
      if (up.body) for await (const c of up.body) res.write(c);
      res.end();
    } catch {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, methods, retarget: (url) => (to = new URL(url)) };
}

async function launchOnce(dataDir: string, dir: string, url: string) {
  const host = new Host({ dataDir });
  const launch = await host.launch(writeProfile(dir, profileYaml('eras', { up: { url } }), 'eras.yaml'));
  const server = launch.supervisor.get('up')!;
  return { host, launch, server };
}

describe('upstream eras, found once and remembered', () => {
  it('probes a new-era server on its first start only, then adopts the remembered discovery', async () => {
    const proxy = await countingProxy(await startFixture('tests/fixtures/conformance-next/server.mjs', []));
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');

    const first = await launchOnce(dataDir, tmp.dir, proxy.url);
    expect(first.server.status()).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28', era: { era: 'new', how: 'probed' } });
    expect(proxy.methods.filter((m) => m === 'server/discover')).toHaveLength(1);
    expect(proxy.methods).not.toContain('initialize');
    // Stateless: each call carries the envelope and goes out as a plain POST (no session).
    const res = await first.launch.gateway.callTool('test_simple_text', {}, { agentSession: 'test' });
    expect(JSON.stringify(res.content)).toContain('simple text response');
    await first.host.shutdown();

    const file = path.join(dataDir, 'upstream-eras.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { era: string; version: string; target: string; discover?: { supportedVersions?: string[] } }>;
    expect(saved.up).toMatchObject({ era: 'new', version: '2026-07-28', target: proxy.url });
    expect(saved.up!.discover?.supportedVersions).toContain('2026-07-28');

    proxy.methods.length = 0;
    const second = await launchOnce(dataDir, tmp.dir, proxy.url);
    cleanups.push(() => second.host.shutdown());
    expect(second.server.status()).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28', era: { era: 'new', how: 'remembered' } });
    expect(proxy.methods).not.toContain('server/discover');
    expect(proxy.methods).not.toContain('initialize');
    expect(second.server.tools().map((t) => t.name)).toContain('test_input_required_result_elicitation');

    // The heartbeat of a new-era server: there is no `ping` in 2026-07-28, so liveness asks
    // server/discover; the run stays up (a ping here ended it after 15 s, caught under load).
    proxy.methods.length = 0;
    await second.server.checkAlive();
    expect(proxy.methods).toContain('server/discover');
    expect(proxy.methods).not.toContain('ping');
    expect(second.server.status()).toMatchObject({ state: 'ready', run: 1 });
  });

  it('probes an old-era server once, then speaks 2025-11-25 to it without a probe', async () => {
    const proxy = await countingProxy(await startFixture('tests/fixtures/conformance/server.mjs', ['--http', '0']));
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const first = await launchOnce(dataDir, tmp.dir, proxy.url);
    expect(first.server.status()).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25', era: { era: 'old', how: 'probed' } });
    expect(proxy.methods.filter((m) => m === 'server/discover')).toHaveLength(1);
    await first.host.shutdown();

    proxy.methods.length = 0;
    const second = await launchOnce(dataDir, tmp.dir, proxy.url);
    cleanups.push(() => second.host.shutdown());
    expect(second.server.status()).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25', era: { era: 'old', how: 'remembered' } });
    expect(proxy.methods).not.toContain('server/discover');
    expect(proxy.methods).toContain('initialize');
  });

  it('forgets a remembered new-era verdict that no longer matches and probes again', async () => {
    const proxy = await countingProxy(await startFixture('tests/fixtures/conformance-next/server.mjs', []));
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const dataDir = path.join(tmp.dir, 'data');
    const first = await launchOnce(dataDir, tmp.dir, proxy.url);
    expect(first.server.status().era).toEqual({ era: 'new', how: 'probed' });
    await first.host.shutdown();

    // The same URL now serves an old-era server: the remembered discovery is adopted (no round
    // trip), its first request fails, the verdict is forgotten and the restart probes.
    proxy.retarget(await startFixture('tests/fixtures/conformance/server.mjs', ['--http', '0']));
    const second = await launchOnce(dataDir, tmp.dir, proxy.url);
    cleanups.push(() => second.host.shutdown());
    for (let i = 0; i < 400 && second.server.status().state !== 'ready'; i++) await new Promise((r) => setTimeout(r, 25));
    expect(second.server.status()).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25', era: { era: 'old', how: 'probed' } });
    expect(second.server.stderrTail().join('\n')).toMatch(/remembered new-era discovery no longer matches/);
    const saved = JSON.parse(readFileSync(path.join(dataDir, 'upstream-eras.json'), 'utf8')) as Record<string, { era: string }>;
    expect(saved.up?.era).toBe('old');
  });
});

describe('UpstreamEras (the memory itself)', () => {
  it('forgets a server pointed elsewhere, dates old-era verdicts, survives a corrupt file', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const eras = new UpstreamEras(tmp.dir);
    eras.remember('a', { era: 'old', version: '2025-11-25', target: 'http://127.0.0.1:1/mcp' });
    expect(new UpstreamEras(tmp.dir).get('a', 'http://127.0.0.1:1/mcp')?.era).toBe('old');
    expect(new UpstreamEras(tmp.dir).get('a', 'http://127.0.0.1:2/mcp')).toBeUndefined();
    const rec = eras.get('a', 'http://127.0.0.1:1/mcp')!;
    expect(UpstreamEras.stale(rec)).toBe(false);
    expect(UpstreamEras.stale({ ...rec, at: Date.now() - OLD_ERA_HORIZON_MS - 1 })).toBe(true);
    expect(UpstreamEras.stale({ ...rec, era: 'new', at: 0 })).toBe(false);
    mkdirSync(tmp.dir, { recursive: true });
    writeFileSync(path.join(tmp.dir, 'upstream-eras.json'), '{ not json');
    expect(new UpstreamEras(tmp.dir).get('a', 'http://127.0.0.1:1/mcp')).toBeUndefined();
    writeFileSync(path.join(tmp.dir, 'upstream-eras.json'), JSON.stringify({ a: { era: 'sideways', version: 1 } }));
    expect(new UpstreamEras(tmp.dir).get('a', 'http://127.0.0.1:1/mcp')).toBeUndefined();
  });
});
