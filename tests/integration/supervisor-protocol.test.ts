// stdout is protocol only: garbage lines are faults (counted, tapped, never forwarded, never
// fatal), and a server that speaks Content-Length framing works like any other.
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host } from '../../main/host';
import { tempDir, writeProfile } from '../support/temp';
import { FAST_RESTART, profileYaml, serverFixture, waitFor } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function launchOne(server: Record<string, unknown>) {
  const tmp = tempDir();
  const host = new Host({ dataDir: path.join(tmp.dir, 'data'), stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(tmp.cleanup, () => host.shutdown());
  const file = writeProfile(tmp.dir, profileYaml('protocol', { raw: { command: process.execPath, restart: FAST_RESTART, ...server } }));
  const launch = await host.launch(file);
  return { host, launch, server: launch.supervisor.get('raw')! };
}

const raw = serverFixture('raw-server.mjs');

describe('garbage on stdout', () => {
  it('keeps working, counts the faults, taps them and forwards none', async () => {
    const { host, launch, server } = await launchOne({ args: [raw, '--garbage'] });
    expect(server.status().state).toBe('ready');
    const pid = server.status().pid;
    const forwarded: unknown[] = [];
    server.client!.fallbackNotificationHandler = async (n) => void forwarded.push(n);

    for (const text of ['a', 'b', 'c']) {
      const res = await server.client!.request({ method: 'tools/call', params: { name: 'echo', arguments: { text } } }, CallToolResultSchema);
      expect((res.content[0] as { text: string }).text).toBe(text);
    }
    const { tools } = await server.client!.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'pid', 'die', 'hang', 'bad_sampling']);

    // Banner + half JSON (initialize) + non-JSON-RPC and DEBUG (tools/list, twice) + one per call.
    const expectedFaults = 1 + 1 + 2 * 2 + 3;
    await waitFor(() => server.status().protocolFaults >= expectedFaults, { what: 'faults counted' });
    const status = server.status();
    expect(status.protocolFaults).toBe(expectedFaults);
    expect(status).toMatchObject({ state: 'ready', run: 1, restarts: 0, pid });

    const events = host.tap.snapshot().filter((e) => e.session === launch.id && e.server === 'raw');
    const faults = events.filter((e) => e.kind === 'fault');
    expect(faults.length).toBe(expectedFaults);
    for (const f of faults) {
      expect(f.direction).toBe('server_to_gateway');
      expect(typeof f.fault).toBe('string');
    }
    const rawTexts = faults.map((f) => (f.message as { raw: string }).raw);
    expect(rawTexts.some((t) => t.includes('a banner on stdout'))).toBe(true);
    expect(rawTexts.some((t) => t.includes('"not":"json-rpc"'))).toBe(true);
    // Every other inbound event is a real JSON-RPC message; no fault reached the client.
    for (const e of events.filter((x) => x.direction === 'server_to_gateway' && x.kind !== 'fault')) {
      expect((e.message as { jsonrpc?: string }).jsonrpc).toBe('2.0');
    }
    expect(forwarded).toEqual([]);
  });
});

describe('Content-Length framing', () => {
  it('works when fixed in the profile', async () => {
    const { server, host, launch } = await launchOne({ args: [raw, '--framing', 'content-length'], framing: 'content-length' });
    expect(server.status().state).toBe('ready');
    expect(server.status().serverInfo?.name).toBe('raw-server');
    const { tools } = await server.client!.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const res = await server.client!.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'grüße 日本語 🦊' } } }, CallToolResultSchema);
    expect((res.content[0] as { text: string }).text).toBe('grüße 日本語 🦊');
    expect(server.status().protocolFaults).toBe(0);
    expect(host.tap.snapshot().filter((e) => e.session === launch.id && e.kind === 'fault')).toEqual([]);
  });

  it('works with framing: auto, after one silent start (the client has to speak first)', async () => {
    // The server reports its own pid, compared with the host's: unsandboxed (a PID namespace renumbers it).
    const { server } = await launchOne({ args: [raw, '--framing', 'content-length'], framing: 'auto', startup_timeout_s: 1, sandbox: 'off' });
    await waitFor(() => server.status().state === 'ready', { what: 'ready' });
    expect(server.status()).toMatchObject({ state: 'ready', run: 2, restarts: 1 });
    expect(server.stderrTail().join('\n')).toContain('next start writes content-length framing');
    const res = await server.client!.request({ method: 'tools/call', params: { name: 'pid', arguments: {} } }, CallToolResultSchema);
    expect(Number((res.content[0] as { text: string }).text)).toBe(server.status().pid);
  });
});
