// process.exec through the real server over stdio.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { buildToolsServer, errorOf, makeTempDir, removeDir, startToolsServer, structured, type ToolsServerHandle } from '../fixtures/tools/harness';

let ws: string;
let server: ToolsServerHandle | undefined;

beforeAll(async () => { await buildToolsServer(); });
beforeEach(() => { ws = makeTempDir('gh-ws-'); });
afterEach(async () => { await server?.close(); server = undefined; removeDir(ws); });

async function start(options?: unknown): Promise<ToolsServerHandle> {
  server = await startToolsServer(ws, options);
  return server;
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

async function waitUntil(cond: () => boolean, what: string): Promise<void> {
  // Polling with a generous ceiling: this waits for an effect, it does not measure time.
  for (let i = 0; i < 200; i++) { if (cond()) return; await new Promise((r) => setTimeout(r, 50)); }
  throw new Error(`gave up waiting for ${what}`);
}

describe('process.exec', () => {
  it('runs argv without a shell in a confined cwd with a minimal environment', async () => {
    mkdirSync(path.join(ws, 'sub'));
    const s = await start();
    const r = await s.call('process.exec', { argv: ['node', '-e', 'console.log(process.cwd()); console.log(JSON.stringify(Object.keys(process.env).sort())); console.error("warn"); process.exit(3)'], cwd: 'sub' });
    expect(r.isError).toBeFalsy();
    const out = structured(r);
    expect(out).toMatchObject({ exit_code: 3, signal: null, stderr: 'warn\n', stdout_truncated: false, stderr_truncated: false, cwd: 'sub' });
    const [cwd, keys] = out.stdout.trim().split('\n');
    expect(cwd).toBe(path.join(ws, 'sub'));
    expect(JSON.parse(keys)).toEqual(['HOME', 'LANG', 'LC_ALL', 'PATH']);
    // Shell metacharacters are plain arguments.
    const echo = structured(await s.call('process.exec', { argv: ['echo', '$HOME', '&&', 'rm', '-rf', '/', ';', '`id`'] }));
    expect(echo.stdout).toBe('$HOME && rm -rf / ; `id`\n');
  });

  it('caps output, keeps the head and keeps draining so the child finishes', async () => {
    const s = await start({ exec: { max_output_bytes: 1000 } });
    const r = structured(await s.call('process.exec', { argv: ['node', '-e', 'process.stdout.write("a".repeat(5_000_000)); process.stderr.write("b".repeat(10))'] }));
    expect(r).toMatchObject({ exit_code: 0, stdout_truncated: true, stderr_truncated: false, stderr: 'bbbbbbbbbb' });
    expect(r.stdout).toBe('a'.repeat(1000));
  });

  it('OutputTooLargeError when capped output would still not fit one message', async () => {
    const s = await start({ exec: { max_output_bytes: 4 * 1024 * 1024 } });
    const e = errorOf(await s.call('process.exec', { argv: ['node', '-e', 'process.stdout.write("\\0".repeat(4 * 1024 * 1024))'] }));
    expect(e).toMatchObject({ type: 'OutputTooLargeError', details: { reason: 'result_too_large' } });
  });

  it('TimeoutError kills the whole process group, grandchild included', async () => {
    const pidFile = path.join(ws, 'grandchild.pid');
    const s = await start({ exec: { timeout_ms: 60_000 } });
    const script = `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
      console.log('started');
      setInterval(() => {}, 1000);`;
    const r = await s.call('process.exec', { argv: ['node', '-e', script], timeout_ms: 1500 });
    const e = errorOf(r);
    expect(e.type).toBe('TimeoutError');
    expect(e.details).toMatchObject({ timeout_ms: 1500, stdout: 'started\n' });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    await waitUntil(() => !alive(grandchild), `grandchild ${grandchild} to be killed`);
    expect(alive(grandchild)).toBe(false);
  });

  it('CommandNotFoundError, CommandNotAllowedError, FileNotFoundError (cwd), PathOutsideWorkspaceError, PermissionError', async () => {
    writeFileSync(path.join(ws, 'script.sh'), '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const s = await start({ exec: { allowed_commands: ['node', 'echo', './script.sh', 'definitely-not-a-command-xyz'] } });
    expect(errorOf(await s.call('process.exec', { argv: ['definitely-not-a-command-xyz'] })).type).toBe('CommandNotFoundError');
    const notAllowed = errorOf(await s.call('process.exec', { argv: ['rm', '-rf', 'x'] }));
    expect(notAllowed).toMatchObject({ type: 'CommandNotAllowedError', details: { command: 'rm' } });
    expect(errorOf(await s.call('process.exec', { argv: ['echo'], cwd: 'nope' })).type).toBe('FileNotFoundError');
    expect(errorOf(await s.call('process.exec', { argv: ['echo'], cwd: '../' })).type).toBe('PathOutsideWorkspaceError');
    expect(errorOf(await s.call('process.exec', { argv: ['echo'], cwd: '/tmp' })).type).toBe('PathOutsideWorkspaceError');
    expect(errorOf(await s.call('process.exec', { argv: ['./script.sh'] })).type).toBe('PermissionError');
    expect(errorOf(await s.call('process.exec', { argv: [] })).type).toBe('InvalidArgumentError');
    expect(existsSync(path.join(ws, 'x'))).toBe(false);
  });
});
