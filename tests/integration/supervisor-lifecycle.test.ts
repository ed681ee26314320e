// The supervisor's state machine against real misbehaving processes: crash and restart with
// backoff, in-flight requests that fail at once, a server that keeps crashing, one that ignores
// SIGTERM, and exit events from an old child. States, orders, pids and counts, never durations.
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Host } from '../../main/host';
import type { ServerStatus } from '../../main/supervisor/types';
import { tempDir, writeProfile } from '../support/temp';
import { FAST_RESTART, pidAlive, profileYaml, serverFixture, waitFor } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function launchOne(server: Record<string, unknown>) {
  const tmp = tempDir();
  const host = new Host({ dataDir: path.join(tmp.dir, 'data'), stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(tmp.cleanup, () => host.shutdown());
  const seen: ServerStatus[] = [];
  host.on('server-status', (_launch, s) => seen.push(s));
  const file = writeProfile(tmp.dir, profileYaml('lifecycle', { raw: { command: process.execPath, restart: FAST_RESTART, ...server } }));
  const launch = await host.launch(file);
  const server0 = launch.supervisor.get('raw')!;
  return { host, launch, server: server0, seen };
}

const raw = serverFixture('raw-server.mjs');

function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  // A long timeout on purpose: a request to a dead server must fail because it died, not time out.
  return client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, { timeout: 120_000 });
}

describe('crash and restart', () => {
  it('restarts a server that exits after N requests, with backoff, and fails its in-flight request at once', async () => {
    const { server, seen } = await launchOne({ args: [raw, '--exit-after', '2'] });
    expect(server.status()).toMatchObject({ state: 'ready', run: 1, restarts: 0 });
    const firstPid = server.status().pid!;

    const client = server.client!;
    const first = await callTool(client, 'echo', { text: 'one' });
    expect((first.content[0] as { text: string }).text).toBe('one');

    // The second call is in flight when the server exits: it rejects, it does not hang.
    const err = await callTool(client, 'echo', { text: 'two' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.ConnectionClosed);
    expect((err as McpError).message).not.toMatch(/timed out/i);

    await waitFor(() => server.status().state === 'ready' && server.status().run === 2, { what: 'run 2 ready' });
    const status = server.status();
    expect(status.restarts).toBe(1);
    expect(status.pid).toBeGreaterThan(0);
    expect(status.pid).not.toBe(firstPid);
    expect(status.lastExit).toMatchObject({ code: 3, signal: null });
    expect(pidAlive(firstPid)).toBe(false);

    // ready(1) → restarting → starting(2) → ready(2), in that order.
    const order = seen.map((s) => `${s.state}:${s.run}`);
    const from = order.indexOf('ready:1');
    expect(from).toBeGreaterThanOrEqual(0);
    expect(order.slice(from)).toEqual(['ready:1', 'restarting:1', 'starting:2', 'ready:2']);
    const restarting = seen.find((s) => s.state === 'restarting')!;
    expect(restarting.nextRestartAt).toBeGreaterThan(0);
    expect(restarting.reason).toMatch(/exited with code 3/);
    expect(restarting.reason).toMatch(/restart 1 of 3/);

    // The new run works, and the request that killed the old one is not replayed.
    const again = await callTool(server.client!, 'echo', { text: 'three' });
    expect((again.content[0] as { text: string }).text).toBe('three');
  });

  it('ends failed, with its stderr tail, when it keeps crashing', async () => {
    const marker = 'FATAL-MARKER: config file /nowhere/x.json is missing';
    const { server, seen } = await launchOne({ args: [raw, '--crash', marker] });
    const status = server.status();
    expect(status.state).toBe('failed');
    expect(status.restarts).toBe(3);
    expect(status.run).toBe(4);
    expect(status.stderrTail).toContain(marker);
    expect(status.reason).toContain(marker);
    expect(status.reason).toMatch(/exited with code 1/);
    expect(status.lastExit).toMatchObject({ code: 1 });
    expect(seen.filter((s) => s.state === 'restarting').length).toBe(3);
    expect(seen.filter((s) => s.state === 'failed').length).toBe(1);
    expect(seen.at(-1)!.state).toBe('failed');
    // The failed event itself carries the tail (what the UI and CLI show).
    expect(seen.at(-1)!.stderrTail).toContain(marker);
  });

  it("names the server when a gateway-routed request is in flight as it dies", async () => {
    const { server } = await launchOne({ args: [raw, '--exit-after', '1'] });
    const err = await server
      .channel!.request('tools/call', { name: 'echo', arguments: {} }, { stamp: { id: 'x-1', method: 'tools/call' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.ConnectionClosed);
    expect((err as McpError).message).toContain("server 'raw' went away while this request was in flight");
    await waitFor(() => server.status().state === 'ready' && server.status().run === 2, { what: 'run 2 ready' });
  });
});

describe('a server killed by a signal', () => {
  it('inside bubblewrap it reads as killed by that signal, not as the wrapper\'s code 137', async () => {
    const { server, seen } = await launchOne({ args: [raw], restart: { ...FAST_RESTART, max_restarts: 0 } });
    expect(server.status().sandbox?.kind).toBe('bubblewrap');
    void server.client!.request({ method: 'tools/call', params: { name: 'die', arguments: { signal: 'SIGKILL' } } }, CallToolResultSchema).catch(() => {});
    await waitFor(() => server.status().lastExit !== undefined, { what: 'the run ended' });
    expect(server.status().lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(seen.at(-1)!.reason).toMatch(/^killed by SIGKILL/);
  });
});

describe('shutdown of a stubborn server', () => {
  it('SIGKILLs a server that ignores stdin close and SIGTERM; stop() resolves; state stopped', async () => {
    const { server } = await launchOne({ args: [raw, '--ignore-term'] });
    const pid = server.status().pid!;
    expect(server.status().state).toBe('ready');
    await server.stop('test stop');
    const status = server.status();
    expect(status.state).toBe('stopped');
    expect(status.lastExit?.signal).toBe('SIGKILL');
    expect(pidAlive(pid)).toBe(false);
    // It did see both polite requests first.
    expect(server.stderrTail()).toEqual(expect.arrayContaining(['raw-server: ignoring stdin end', 'raw-server: ignoring SIGTERM']));
  });
});

describe('old children', () => {
  it("restart() while running: the old child's exit does not touch the new run", async () => {
    // The server reports its own pid: unsandboxed, so that it is the host's (sandbox-orphans.test.ts covers bwrap).
    const { server, seen } = await launchOne({ args: [raw], sandbox: 'off' });
    const oldPid = server.status().pid!;
    await server.restart();
    const status = server.status();
    expect(status.state).toBe('ready');
    expect(status.run).toBe(2);
    expect(status.pid).not.toBe(oldPid);
    expect(pidAlive(oldPid)).toBe(false);
    // An orderly restart is not a crash: no restart counted, no `restarting` state.
    expect(status.restarts).toBe(0);
    expect(seen.map((s) => s.state)).not.toContain('restarting');
    const mark = seen.length;
    // Give any late event from run 1 a chance to arrive, then check nothing moved.
    const res = await callTool(server.client!, 'pid');
    expect(Number((res.content[0] as { text: string }).text)).toBe(status.pid);
    expect(seen.slice(mark).filter((s) => s.state !== 'ready')).toEqual([]);
    expect(server.status()).toMatchObject({ state: 'ready', run: 2, pid: status.pid });
  });

  it('restart() while a crash restart is pending launches one run, not two', async () => {
    const { server, seen } = await launchOne({
      args: [raw, '--exit-after', '1'],
      restart: { initial_backoff_ms: 2000, max_backoff_ms: 2000, max_restarts: 3 },
    });
    await callTool(server.client!, 'echo').catch(() => {});
    await waitFor(() => server.status().state === 'restarting', { what: 'restarting' });
    await server.restart();
    expect(server.status()).toMatchObject({ state: 'ready', run: 2 });
    const pid = server.status().pid;
    // The pending backoff timer must not start a third run behind our back.
    await new Promise((r) => setTimeout(r, 2500));
    expect(server.status()).toMatchObject({ state: 'ready', run: 2, pid });
    expect(seen.filter((s) => s.state === 'starting').length).toBe(2);
  });
});
