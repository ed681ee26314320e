// OpenTelemetry export (docs/telemetry.md) into a real OTLP/HTTP receiver on loopback: a
// launch whose profile names the collector sends one span per exchange, with the MCP semantic
// conventions and the decision, decider, outcome and server, for allowed, approved and denied
// calls; metrics for calls, denials and latency; and never a configured secret, not even
// the collector's own Authorization value or a server's error text that quotes a secret.
// A launch without `telemetry:` sends nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Host, type Launch } from '../../main/host';
import { tempDir, writeProfile } from '../support/temp';
import { profileYaml, serverFixture } from '../support/supervisor';
import { autoApprover, connectHttp, waitFor } from '../support/gateway';

const SECRET = 'sk-otlp-leak-9Vq3ZrT7xW1mB5nK';
const COLLECTOR_KEY = 'otlp-bearer-4Hc8LpQ2sY6dF0jA';

interface Received {
  path: string;
  authorization?: string;
  body: string;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type OtlpSpan = { name: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string; attributes: { key: string; value: OtlpValue }[]; status?: { code?: number; message?: string } };

function attrs(span: OtlpSpan): Record<string, string | number | boolean | undefined> {
  return Object.fromEntries(span.attributes.map((a) => [a.key, a.value.stringValue ?? (a.value.intValue !== undefined ? Number(a.value.intValue) : (a.value.doubleValue ?? a.value.boolValue))]));
}

let tmp: ReturnType<typeof tempDir>;
let host: Host;
let launch: Launch;
let quiet: Launch;
let collector: http.Server;
let client: Client;
const received: Received[] = [];

function spans(): OtlpSpan[] {
  return received
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) => (JSON.parse(r.body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans)));
}

beforeAll(async () => {
  tmp = tempDir('gatehouse-otlp-');
  collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', authorization: req.headers.authorization, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const port = (collector.address() as AddressInfo).port;
  const leaky = { command: process.execPath, args: [serverFixture('leaky-server.mjs')], env: { LEAK_TOKEN: '${secret:LEAK_KEY}' } };
  const rules = [
    { match: 'leaky.leak', decision: 'allow' },
    { match: 'leaky.leak_error', decision: 'approve', reason: 'it fails loudly' },
    { match: 'leaky.leak_sampling', decision: 'deny', reason: 'no sampling here' },
  ];
  const file = writeProfile(
    tmp.dir,
    profileYaml('otlp-export', { leaky }, { policy: { default: 'deny', rules }, telemetry: { otlp: `http://127.0.0.1:${port}`, headers: { Authorization: 'Bearer ${secret:OTLP_KEY}' }, metrics_interval_s: 0.5 } }),
  );
  const quietFile = writeProfile(tmp.dir, profileYaml('otlp-quiet', { leaky }), 'quiet.yaml');
  host = new Host({ dataDir: path.join(tmp.dir, 'data'), env: { ...process.env, GATEHOUSE_SECRET_LEAK_KEY: SECRET, GATEHOUSE_SECRET_OTLP_KEY: COLLECTOR_KEY } });
  launch = await host.launch(file, { httpPort: 0, token: 'otlp-export-token-1234567890' });
  quiet = await host.launch(quietFile, { httpPort: 0, token: 'otlp-quiet-token-1234567890' });
  for (const s of [...launch.statuses(), ...quiet.statuses()]) expect(s.state, `${s.id}: ${s.reason}`).toBe('ready');
  client = await connectHttp(launch, {}, 'otlp-agent');
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  await host?.shutdown();
  await new Promise((r) => collector?.close(r));
  tmp?.cleanup();
});

describe('OTLP export of exchanges', () => {
  it('sends a span per call with the MCP attributes, the decision and who decided, for allowed, approved and denied calls', async () => {
    const approver = autoApprover(host, () => 'allow_once');
    try {
      await client.callTool({ name: 'leak', arguments: {} });
      await client.callTool({ name: 'leak_error', arguments: {} }).catch(() => {});
      const denied = await client.callTool({ name: 'leak_sampling', arguments: {} });
      expect(denied.isError).toBe(true);
    } finally {
      approver.detach();
    }
    const calls = await waitFor(() => {
      const list = spans().filter((s) => s.name.startsWith('tools/call '));
      return list.length >= 3 ? list : undefined;
    }, 'three tools/call spans at the collector');
    const byTool = Object.fromEntries(calls.map((s) => [attrs(s)['gen_ai.tool.name'], s]));
    const allowed = attrs(byTool['leaky.leak']!);
    expect(allowed).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gatehouse.server': 'leaky',
      'gatehouse.decision': 'ALLOW',
      'gatehouse.decider': 'rule',
      'gatehouse.outcome': 'ok',
      'gatehouse.agent.name': 'otlp-agent',
    });
    expect(typeof allowed['mcp.session.id']).toBe('string');
    expect(allowed['gatehouse.rule']).toMatch(/^policy\.rules\[0\]/);
    expect(attrs(byTool['leaky.leak_error']!)).toMatchObject({ 'gatehouse.decision': 'APPROVAL', 'gatehouse.decider': 'person', 'gatehouse.answered_by': 'test' });
    const deny = byTool['leaky.leak_sampling']!;
    expect(attrs(deny)).toMatchObject({ 'gatehouse.decision': 'DENY', 'gatehouse.decider': 'rule', 'gatehouse.outcome': 'denied' });
    expect(String(attrs(deny)['gatehouse.reason'])).toContain('no sampling here');
    for (const s of calls) expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
  });

  it('sends call metrics: calls, denials and the latency histogram', async () => {
    const names = await waitFor(() => {
      const found = new Set(
        received
          .filter((r) => r.path === '/v1/metrics')
          .flatMap((r) => (JSON.parse(r.body) as { resourceMetrics: { scopeMetrics: { metrics: { name: string }[] }[] }[] }).resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.name)))),
      );
      return ['gatehouse.calls', 'gatehouse.denials', 'mcp.server.operation.duration', 'gatehouse.approvals.waiting'].every((n) => found.has(n)) ? found : undefined;
    }, 'the four metrics at the collector');
    expect(names.size).toBeGreaterThanOrEqual(4);
  });

  it('authenticates to the collector with the configured header and never sends a secret in the payload', () => {
    expect(received.length).toBeGreaterThan(0);
    for (const r of received) {
      expect(r.authorization).toBe(`Bearer ${COLLECTOR_KEY}`);
      expect(r.body).not.toContain(SECRET);
      expect(r.body).not.toContain(COLLECTOR_KEY);
    }
    // The server's error quoted the secret: the span carries the error, redacted.
    const failed = spans().find((s) => attrs(s)['gen_ai.tool.name'] === 'leaky.leak_error');
    expect(failed?.status?.code).toBe(2);
    expect(failed?.status?.message).toContain('«secret:LEAK_KEY»');
  });

  it('sends nothing for a launch whose profile names no collector', async () => {
    const other = await connectHttp(quiet, {}, 'quiet-agent');
    await other.callTool({ name: 'leak', arguments: {} });
    await other.close();
    // The first launch's batches keep arriving meanwhile (metrics every 0.5 s): wait for one after the call.
    const count = received.length;
    await waitFor(() => received.length > count + 1, 'two more batches from the exporting launch');
    const launches = new Set(
      received.flatMap((r) =>
        (JSON.parse(r.body) as { resourceSpans?: { resource: { attributes: { key: string; value: OtlpValue }[] } }[]; resourceMetrics?: { resource: { attributes: { key: string; value: OtlpValue }[] } }[] }).resourceSpans
          ?.concat([])
          .map((rs) => rs.resource.attributes.find((a) => a.key === 'gatehouse.launch.id')?.value.stringValue) ?? [],
      ),
    );
    expect(launches.has(launch.id)).toBe(true);
    expect(launches.has(quiet.id)).toBe(false);
  });
});
