// Memory stays bounded whatever the file or response size: a 2 GiB sparse file and a
// 1 GiB streamed response, measured as the server process's peak RSS (VmHWM) after the call.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSync, ftruncateSync, closeSync, writeSync } from 'node:fs';
import path from 'node:path';
import { buildToolsServer, errorOf, makeTempDir, peakRssKb, removeDir, startToolsServer, structured, type ToolsServerHandle } from '../fixtures/tools/harness';
import { startHttpFixture, type HttpFixture } from '../fixtures/tools/http-fixture';

// Generous on purpose: a Node process with the SDK loaded peaks around 60–80 MB here; slurping
// the inputs would need gigabytes.
const BOUND_KB = 200 * 1024;
const GiB = 1024 * 1024 * 1024;

let ws: string;
let web: HttpFixture;
let server: ToolsServerHandle | undefined;

beforeAll(async () => { await buildToolsServer(); web = await startHttpFixture(); });
afterAll(async () => { await web.close(); });
beforeEach(() => { ws = makeTempDir('gh-ws-'); });
afterEach(async () => { await server?.close(); server = undefined; removeDir(ws); });

describe.runIf(process.platform === 'linux')('bounded memory', () => {
  it('a 2 GiB sparse file: FileTooLargeError without reading, and a max_chars prefix', async () => {
    const file = path.join(ws, 'huge.log');
    const fd = openSync(file, 'w');
    writeSync(fd, 'first line\n');
    ftruncateSync(fd, 2 * GiB); // sparse: no 2 GiB on disk, none in memory
    closeSync(fd);
    server = await startToolsServer(ws);
    const before = peakRssKb(server.pid);
    expect(errorOf(await server.call('fs.read', { file_path: 'huge.log' }))).toMatchObject({ type: 'FileTooLargeError', details: { size_bytes: 2 * GiB } });
    const prefix = structured(await server.call('fs.read', { file_path: 'huge.log', max_chars: 11 }));
    expect(prefix).toEqual({ file_content: 'first line\n', chars_read: 11, encoding_used: 'utf-8' });
    expect(structured(await server.call('fs.read', { file_path: 'huge.log', max_chars: 100_000 })).chars_read).toBe(100_000);
    // 1 MiB of NUL characters fits the read cap but not one message (each is \u0000 twice over).
    expect(errorOf(await server.call('fs.read', { file_path: 'huge.log', max_chars: 1024 * 1024 }))).toMatchObject({ type: 'FileTooLargeError', details: { reason: 'result_too_large' } });
    // Asking for more characters than the read cap holds.
    expect(errorOf(await server.call('fs.read', { file_path: 'huge.log', max_chars: 10 * 1024 * 1024 })).type).toBe('FileTooLargeError');
    const after = peakRssKb(server.pid);
    process.stderr.write(`[tools-memory] 2 GiB sparse read: server VmHWM ${before} kB before, ${after} kB after\n`);
    expect(after).toBeLessThan(BOUND_KB);
  });

  it('a 1 GiB streamed response is cut at the cap with bounded RSS', async () => {
    server = await startToolsServer(ws, { http: { allow_hosts: ['127.0.0.1'] } });
    const before = peakRssKb(server.pid);
    const url = `${web.origin}/huge`;
    expect(errorOf(await server.call('net.http_request', { url })).type).toBe('ResponseTooLargeError');
    const cut = structured(await server.call('net.http_request', { url, truncate: true }));
    expect(cut).toMatchObject({ body_truncated: true, body_bytes: 1024 * 1024 });
    const after = peakRssKb(server.pid);
    process.stderr.write(`[tools-memory] 1 GiB response: server VmHWM ${before} kB before, ${after} kB after; fixture wrote ${web.hugeBytesSent()} bytes in all\n`);
    expect(after).toBeLessThan(BOUND_KB);
    // The download stopped early: far less than the 2 GiB two full responses would be.
    expect(web.hugeBytesSent()).toBeLessThan(GiB);
  });
});
