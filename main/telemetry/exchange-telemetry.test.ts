// A collector that is down or hangs never holds the host: spans are queued, the failure is told
// once, and a stopping launch waits a bounded time. The host's settings (GATEHOUSE_OTLP_*) name a
// collector when the profile does not, and their header values are redacted like secrets.
import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redactor } from '../secrets/redactor';
import type { Exchange } from '../gateway/exchanges';
import type { ResolvedProfile } from '../profiles/types';
import { ExchangeTelemetry } from './exchange-telemetry';
import { telemetrySpecOf } from './launch-telemetry';

const servers: (http.Server | net.Server)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function exchange(i: number): Exchange {
  return { id: `a#${i}`, legs: [], kind: 'call', session: 'L', agentSession: 'a', method: 'tools/call', tool: 'files.read', server: 'files', receivedAt: Date.now() - 5, answeredAt: Date.now(), outcome: 'ok', decision: 'ALLOW', decidedBy: 'rule' };
}

async function listen(server: http.Server | net.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

function telemetry(port: number, errors: string[]) {
  return new ExchangeTelemetry(
    { otlp: `http://127.0.0.1:${port}`, headers: {}, serviceName: 'gatehouse', metricsIntervalMs: 60_000 },
    { launchId: 'L', profile: 'p', version: '0', approvalsWaiting: () => 0, redact: (t) => t, onExportError: (m) => errors.push(m) },
  );
}

describe('a collector that misbehaves', () => {
  it('refusing connections: spans are dropped after one message, and the stop does not wait for it', { timeout: 40_000 }, async () => {
    const probe = net.createServer();
    const port = await listen(probe);
    await new Promise((r) => probe.close(r));
    servers.splice(servers.indexOf(probe), 1);
    const errors: string[] = [];
    const t = telemetry(port, errors);
    for (let i = 0; i < 5000; i++) t.exchange(exchange(i));
    // The exporter retries with backoff before it gives up on a batch: poll, never a timing assertion.
    for (let waited = 0; errors.length === 0 && waited < 25_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 5000; i++) t.exchange(exchange(i));
    await t.shutdown();
    expect(errors.length).toBe(1);
    expect(errors[0]).toMatch(/collector did not take/);
  });

  it('accepting and never answering: the stop is bounded', async () => {
    const sockets: net.Socket[] = [];
    const port = await listen(net.createServer((s) => sockets.push(s)));
    const t = telemetry(port, []);
    t.exchange(exchange(1));
    await t.shutdown();
    for (const s of sockets) s.destroy();
    // A second stop is the same promise, and exchanges after it are ignored.
    await t.shutdown();
    t.exchange(exchange(2));
  });
});

describe('the host settings', () => {
  const profile = (): ResolvedProfile => ({ name: 'p', redactor: new Redactor() }) as unknown as ResolvedProfile;

  it('name no collector unless GATEHOUSE_OTLP_ENDPOINT is set (OTEL_EXPORTER_OTLP_ENDPOINT is not ours)', () => {
    expect(telemetrySpecOf(profile(), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBeUndefined();
  });

  it('parse GATEHOUSE_OTLP_HEADERS and redact their values', () => {
    const p = profile();
    const spec = telemetrySpecOf(p, { GATEHOUSE_OTLP_ENDPOINT: 'http://127.0.0.1:4318', GATEHOUSE_OTLP_HEADERS: 'authorization=Bearer%20tok-123456789,x-team=blue' });
    expect(spec).toMatchObject({ otlp: 'http://127.0.0.1:4318', headers: { authorization: 'Bearer tok-123456789', 'x-team': 'blue' } });
    expect(p.redactor.redactString('sent Bearer tok-123456789')).not.toContain('tok-123456789');
  });
});
