// The stdio gateway as a host would run it: `node out/cli.mjs gateway --profile P` as a child
// process, spoken to raw over stdin/stdout (newline and Content-Length framing, the legacy
// envelope, bad input), with every byte of stdout parsed as a protocol frame. The CLI is
// bundled fresh for this file (same settings as out/cli.mjs) so a stale build cannot hide a fix;
// the built-in tools server is the one `npm run build` put in out/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { toolsServerEntry } from '../../main/paths';
import { buildTestBundle, type TestBundle } from '../support/build';
import { tempDir, writeProfile } from '../support/temp';
import { pinProfile } from '../support/trust';
import { RawStdioPeer, pidAlive } from '../support/raw-stdio';
import { waitFor } from '../support/gateway';

let bundle: TestBundle;
let CLI: string;

const PROFILE = `
name: stdio-test
workspace: ./ws
servers:
  workspace:
    builtin: workspace-tools
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: approve
  approval_timeout_s: 2
  rules:
    - { match: ["fs.read", "everything.echo", "everything.get-sum"], decision: allow }
`;

const INIT = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'raw-test', version: '1.0.0' },
};

function startGateway(dir: string, extra: string[] = ['--quiet']): RawStdioPeer {
  pinProfile(path.join(dir, 'data'), path.join(dir, 'test.yaml'));
  return new RawStdioPeer(process.execPath, [CLI, 'gateway', '--profile', path.join(dir, 'test.yaml'), '--data-dir', path.join(dir, 'data'), ...extra], {
    cwd: dir,
  });
}

async function initialize(peer: RawStdioPeer, framing: 'line' | 'content-length' = 'line') {
  const res = await peer.request('init', 'initialize', INIT, framing);
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, framing);
  return res;
}

beforeAll(() => {
  if (!existsSync(toolsServerEntry())) throw new Error(`${toolsServerEntry()} is missing: run node scripts/build.mjs first`);
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' });
  CLI = bundle.entry('cli');
});

afterAll(() => bundle?.cleanup());

describe('stdio gateway (quiet)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let peer: RawStdioPeer;

  beforeAll(async () => {
    tmp = tempDir();
    writeProfile(tmp.dir, PROFILE);
    writeFileSync(path.join(tmp.dir, 'ws', 'hello.txt'), 'hello from the workspace\n');
    peer = startGateway(tmp.dir);
    const init = await initialize(peer);
    expect(init.framing).toBe('line');
  }, 60_000);

  afterAll(async () => {
    peer?.kill();
    await peer?.exit;
    tmp?.cleanup();
  });

  it('answers newline-framed initialize, tools/list and tools/call in newline framing', async () => {
    const init = peer.frames.find((f) => f.message.id === 'init')!;
    expect((init.message.result as { serverInfo: { name: string } }).serverInfo.name).toBe('gatehouse');
    const list = await peer.request(2, 'tools/list');
    expect(list.framing).toBe('line');
    const names = (list.message.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'read_file', 'gatehouse_capabilities']));
    const call = await peer.request(3, 'tools/call', { name: 'echo', arguments: { message: 'over stdio' } });
    expect(call.framing).toBe('line');
    expect(JSON.stringify(call.message.result)).toContain('over stdio');
  });

  it('answers Content-Length framed requests in Content-Length framing, mixed in one session', async () => {
    const cl = await peer.request(10, 'tools/call', { name: 'get-sum', arguments: { a: 2, b: 3 } }, 'content-length');
    expect(cl.framing).toBe('content-length');
    expect(JSON.stringify(cl.message.result)).toContain('5');
    const line = await peer.request(11, 'ping', {}, 'line');
    expect(line.framing).toBe('line');
    expect(line.message.result).toEqual({});
    const cl2 = await peer.request(12, 'tools/list', {}, 'content-length');
    expect(cl2.framing).toBe('content-length');
  });

  it('answers a garbage line with -32700 and id null', async () => {
    peer.sendText('this is not json {');
    const f = await peer.waitFor((x) => (x.message.error as { code?: number } | undefined)?.code === -32700, 'the parse error');
    expect(f.message).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(f.framing).toBe('line');
  });

  it('answers an object with an id but no method with -32600 and that id', async () => {
    peer.send({ jsonrpc: '2.0', id: 'no-method-1' });
    const f = await peer.waitFor((x) => x.message.id === 'no-method-1', 'the invalid request error');
    expect(f.message).toMatchObject({ jsonrpc: '2.0', id: 'no-method-1', error: { code: -32600 } });
  });

  it('answers an unknown method with -32601', async () => {
    const f = await peer.request('unknown-1', 'no/such-method', {});
    expect(f.message).toMatchObject({ id: 'unknown-1', error: { code: -32601 } });
  });

  it('answers a tools/call without a name with -32602 (invalid params)', async () => {
    const f = await peer.request('no-name', 'tools/call', {});
    expect(f.message).toMatchObject({ id: 'no-name', error: { code: -32602 } });
    const g = await peer.request('unknown-tool', 'tools/call', { name: 'no_such_tool', arguments: {} });
    expect(g.message).toMatchObject({ id: 'unknown-tool', error: { code: -32602 } });
    // The gateway's own error carries no "MCP error -32602:" prefix: a client SDK adds its own once.
    expect((g.message.error as { message: string }).message).toBe('Unknown tool: no_such_tool');
  });

  it('answers 5 legacy envelopes sent back to back in the order they arrived', async () => {
    const from = peer.frames.length;
    const envelopes = [
      { tool_name: 'echo', arguments: { message: 'first-of-five' } },
      { tool_name: 'no_such_tool_2', arguments: {} },
      { tool_name: 'read_file', arguments: { file_path: 'hello.txt' } },
      { tool_name: 'no_such_tool_4', arguments: {} },
      { tool_name: 'echo', arguments: { message: 'fifth-of-five' } },
    ];
    // One write: the gateway reads them in one chunk, and the fast failures would overtake the calls.
    peer.sendText(envelopes.map((e) => JSON.stringify(e)).join('\n'));
    await waitFor(() => peer.frames.slice(from).filter((f) => 'status' in f.message).length >= 5, 'five legacy replies');
    const replies = peer.frames.slice(from).filter((f) => 'status' in f.message).map((f) => JSON.stringify(f.message));
    expect(replies).toHaveLength(5);
    expect(replies[0]).toContain('first-of-five');
    expect(replies[1]).toContain('no_such_tool_2');
    expect(replies[2]).toContain('hello from the workspace');
    expect(replies[3]).toContain('no_such_tool_4');
    expect(replies[4]).toContain('fifth-of-five');
  });

  it('runs the legacy envelope: success', async () => {
    peer.send({ tool_name: 'read_file', arguments: { file_path: 'hello.txt' } });
    const f = await peer.waitFor((x) => 'status' in x.message && JSON.stringify(x.message).includes('hello from the workspace'), 'the legacy success reply');
    expect(f.framing).toBe('line');
    expect(f.message.status).toBe('success');
    expect(f.message.error).toBeNull();
    expect((f.message.data as { file_content: string }).file_content).toBe('hello from the workspace\n');
    // As specific as the read_file specification's example ("Successfully read 65 characters from …").
    expect(f.message.explanation).toBe('Successfully read 25 characters from hello.txt using utf-8 encoding.');
  });

  it('runs the legacy envelope: failures', async () => {
    peer.send({ tool_name: 'read_file', arguments: { file_path: 'missing.txt' } });
    const missing = await peer.waitFor(
      (x) => x.message.status === 'failure' && (x.message.error as { error_type?: string } | null)?.error_type === 'FileNotFoundError',
      'the FileNotFoundError reply',
    );
    expect(missing.message.data).toBeNull();
    expect((missing.message.error as { error_message: string }).error_message).toBeTruthy();

    peer.send({ tool_name: 'no_such_tool', arguments: {} });
    const unknown = await peer.waitFor(
      (x) => x.message.status === 'failure' && JSON.stringify(x.message.error).includes('no_such_tool'),
      'the unknown tool reply',
    );
    expect((unknown.message.error as { error_type: string }).error_type).toBe('UnknownToolError');

    // A tool that needs approval, with no approver attached: fails closed, as a failure envelope.
    peer.send({ tool_name: 'write_file', arguments: { file_path: 'x.txt', content: 'x' } });
    const denied = await peer.waitFor(
      (x) => x.message.status === 'failure' && (x.message.error as { error_type?: string } | null)?.error_type === 'PolicyDeniedError',
      'the denied reply',
    );
    expect((denied.message.error as { error_message: string }).error_message).toMatch(/^DENY:/);
  });

  it('writes nothing but protocol frames to stdout, and nothing to stderr with --quiet', async () => {
    await peer.request('last', 'ping');
    expect(peer.garbage).toEqual([]);
    expect(peer.pendingBytes()).toBe(0);
    for (const f of peer.frames) expect(f.message.jsonrpc === '2.0' || 'status' in f.message).toBe(true);
    expect(peer.stderr).toBe('');
  });
});

describe('stdio gateway lifecycle', () => {
  it('prints a banner on stderr without --quiet, and shuts down with its servers when stdin closes', async () => {
    const tmp = tempDir();
    writeProfile(tmp.dir, PROFILE);
    const peer = startGateway(tmp.dir, []);
    try {
      await initialize(peer);
      await peer.request(2, 'tools/call', { name: 'echo', arguments: { message: 'x' } });
      expect(peer.stderr).toMatch(/gatehouse gateway: profile 'stdio-test'/);
      const pids = [...peer.stderr.matchAll(/ ready\s+pid (\d+)/g)].map((m) => Number(m[1]));
      expect(pids.length).toBeGreaterThanOrEqual(1);
      for (const pid of pids) expect(pidAlive(pid)).toBe(true);
      peer.child.stdin.end();
      const exit = await peer.exit;
      expect(exit.code).toBe(0);
      await waitFor(() => pids.every((pid) => !pidAlive(pid)), 'the servers to exit');
      expect(peer.garbage).toEqual([]);
      expect(peer.pendingBytes()).toBe(0);
    } finally {
      peer.kill();
      tmp.cleanup();
    }
  }, 60_000);
});

describe('stdio gateway with a server that never answers initialize', () => {
  const SILENT = `
name: silent-test
workspace: ./ws
servers:
  silent:
    command: node
    args: ["-e", "process.stdin.resume(); setInterval(() => {}, 1e9)"]
    startup_timeout_s: 600
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: allow
`;
  let tmp: ReturnType<typeof tempDir>;
  let peer: RawStdioPeer;

  beforeAll(() => {
    tmp = tempDir();
    writeProfile(tmp.dir, SILENT);
    peer = startGateway(tmp.dir);
  });

  afterAll(async () => {
    peer?.kill();
    await peer?.exit;
    tmp?.cleanup();
  });

  it('answers initialize while that server is still starting, and calls the other server', async () => {
    // The silent server may take 600 s to fail its start; the answer must not wait for it.
    const init = await initialize(peer);
    expect((init.message.result as { serverInfo: { name: string } }).serverInfo.name).toBe('gatehouse');
    // everything's tools are listed once it is ready: at once, after the start grace, or
    // announced with notifications/tools/list_changed.
    const names = await waitFor(async () => {
      const list = await peer.request(`list-${Date.now()}`, 'tools/list');
      const tools = (list.message.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
      return tools.includes('echo') ? tools : undefined;
    }, 'echo in tools/list', 60_000);
    expect(names).toContain('gatehouse_capabilities');
    const call = await peer.request('echo-1', 'tools/call', { name: 'echo', arguments: { message: 'not held up' } });
    expect(JSON.stringify(call.message.result)).toContain('not held up');
  }, 90_000);

  it('holds the first tools/list and the capabilities report for the deaf server only briefly after the other is ready', async () => {
    // A start grace far longer than the test: without the straggler rule both would wait for
    // it (the deaf server never leaves its first start), and the test would time out.
    pinProfile(path.join(tmp.dir, 'data2'), path.join(tmp.dir, 'test.yaml'));
    const slow = new RawStdioPeer(process.execPath, [CLI, 'gateway', '--quiet', '--profile', path.join(tmp.dir, 'test.yaml'), '--data-dir', path.join(tmp.dir, 'data2')], {
      cwd: tmp.dir,
      env: { ...process.env, GATEHOUSE_START_GRACE_MS: '600000', GATEHOUSE_START_STRAGGLER_MS: '1000' },
    });
    try {
      await initialize(slow);
      const [list, caps] = await Promise.all([
        slow.request('first-list', 'tools/list'),
        slow.request('first-caps', 'tools/call', { name: 'gatehouse_capabilities', arguments: {} }),
      ]);
      const names = (list.message.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
      expect(names).toContain('echo');
      const states = (caps.message.result as { structuredContent: { tool_states: Array<{ name: string }> } }).structuredContent.tool_states.map((t) => t.name);
      expect(states).toContain('everything.echo');
    } finally {
      slow.kill();
      await slow.exit;
    }
  }, 60_000);
});


describe('stdio gateway before initialize', () => {
  it('writes nothing before the client initializes, then only frames in the client\'s own framing', async () => {
    const tmp = tempDir();
    let peer: RawStdioPeer | undefined;
    try {
      writeProfile(tmp.dir, 'name: only-builtin\nworkspace: ./ws\nservers:\n  workspace:\n    builtin: workspace-tools\n');
      // Not quiet: the supervisor's "ready" line on stderr says the surface has changed by now
      // (the built-in's tools joined it), the moment a list_changed used to go out to a client
      // that had not even sent initialize (a JSON-RPC client read it as its first frame, and a
      // Content-Length client got a bare line before any envelope).
      peer = startGateway(tmp.dir, []);
      const started = peer;
      await waitFor(() => /workspace\s+ready/.test(started.stderr), 'the built-in server ready', 30_000);
      // The ready line is written after the surface refresh; give the event loop a few turns.
      await new Promise((r) => setTimeout(r, 200));
      expect(peer.frames).toEqual([]);
      expect(peer.garbage).toEqual([]);
      expect(peer.pendingBytes()).toBe(0);
      const init = await initialize(peer, 'content-length');
      expect(init.framing).toBe('content-length');
      const list = await peer.request('list', 'tools/list', {}, 'content-length');
      expect(list.framing).toBe('content-length');
      expect(peer.frames[0]!.message.id).toBe('init');
      expect(peer.frames.every((f) => f.framing === 'content-length')).toBe(true);
      expect(peer.garbage).toEqual([]);
    } finally {
      peer?.kill();
      await peer?.exit;
      tmp.cleanup();
    }
  }, 60_000);
});
