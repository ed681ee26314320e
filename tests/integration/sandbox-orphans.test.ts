// No process of a sandboxed server outlives Gatehouse, however Gatehouse ends: SIGKILL of
// `gatehouse launch` and of `gatehouse gateway` with six servers (one ignores stdin EOF and
// SIGTERM, one forks a `setsid` grandchild that leaves the process group), and a normal gateway
// shutdown (the client closes stdin). Processes are found by a marker unique to the test on their
// command line, in the host's /proc: bwrap, the servers inside it and the daemonized grandchild.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';
import { buildTestBundle, type TestBundle } from '../support/build';
import { profileYaml, serverFixture, waitFor } from '../support/supervisor';

let bundle: TestBundle;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'orphans');
}, 60_000);
afterAll(() => bundle?.cleanup());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Host pids whose command line contains `marker`. */
function withMarker(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) out.push(Number(name));
    } catch {}
  }
  return out;
}

function sixServers(marker: string): Record<string, Record<string, unknown>> {
  const probe = (extra: string[]) => ({ command: process.execPath, args: [serverFixture('probe-server.mjs'), '--marker', marker, ...extra], restart: { max_restarts: 0 } });
  return {
    plain: probe([]),
    stubborn: probe(['--ignore-eof']),
    daemon: probe(['--setsid-child', `${marker}-setsid`]),
    four: probe([]),
    five: probe([]),
    six: probe(['--ignore-eof']),
  };
}

function startCli(args: string[], stdin: 'ignore' | 'pipe'): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, [bundle.entry('cli'), ...args], { stdio: [stdin, 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout!.resume();
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, stderr: () => stderr };
}

async function allReady(marker: string, stderr: () => string): Promise<void> {
  await waitFor(() => (stderr().match(/ ready\s+pid \d+/g) ?? []).length === 6, { what: `6 servers ready (stderr: ${stderr()})`, timeoutMs: 60_000 });
  // The setsid grandchild is up too (its own session: not in any server's process group).
  await waitFor(() => withMarker(`${marker}-setsid`).length > 0, { what: 'the setsid grandchild' });
  // bwrap ×2 and the server for each of six, plus the grandchild.
  expect(withMarker(marker).length).toBeGreaterThanOrEqual(6 * 3 + 1);
}

/** What is left 2 s after the kill (the bound); polls so a quick exit is seen quickly. */
async function leftAfter2s(marker: string): Promise<number[]> {
  const deadline = Date.now() + 2000;
  let left = withMarker(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = withMarker(marker);
  }
  return left;
}

/** A profile of six servers under a fresh marker, and a CLI (`launch` or `gateway`) running it, all ready. */
async function sixRunning(command: 'launch' | 'gateway'): Promise<{ marker: string; child: ChildProcess }> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const marker = `orphan-${randomUUID()}`;
  const file = writeProfile(tmp.dir, profileYaml('orphans', sixServers(marker)));
  const data = path.join(tmp.dir, 'data');
  // A person approved these launch commands (docs/trust.md "Launch consent"), so all six start.
  pinProfile(data, file);
  const args = command === 'launch' ? ['launch', '--profile', file, '--no-http', '--no-approver', '--data-dir', data] : ['gateway', '--profile', file, '--data-dir', data];
  const { child, stderr } = startCli(args, command === 'launch' ? 'ignore' : 'pipe');
  await allReady(marker, stderr);
  return { marker, child };
}

describe('SIGKILL of Gatehouse leaves no server process', () => {
  it('gatehouse launch with six sandboxed servers: 0 processes left after 2 s', async () => {
    const { marker, child } = await sixRunning('launch');
    child.kill('SIGKILL');
    expect(await leftAfter2s(marker)).toEqual([]);
  }, 120_000);

  it('gatehouse gateway with six sandboxed servers: 0 processes left after 2 s', async () => {
    const { marker, child } = await sixRunning('gateway');
    child.kill('SIGKILL');
    expect(await leftAfter2s(marker)).toEqual([]);
  }, 120_000);
});

describe('a normal gateway shutdown', () => {
  it("takes a server's setsid grandchild with it", async () => {
    const { marker, child } = await sixRunning('gateway');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The MCP client goes away: the gateway shuts every server down and exits.
    child.stdin!.end();
    expect(await exited).toBe(0);
    expect(withMarker(`${marker}-setsid`)).toEqual([]);
    expect(withMarker(marker)).toEqual([]);
  }, 120_000);
});
