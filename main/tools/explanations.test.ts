// Every built-in tool's success explanation, from real calls on a real temp workspace (and a real
// HTTP server on 127.0.0.1): as specific as the read_file specification's example, names and
// counts only, never content.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openWorkspace } from './confine';
import { parseOptions } from './options';
import { EXPLANATION_META_KEY, type ToolContext } from './tool-kit';
import { BUILTIN_TOOLS, invokeTool } from './workspace-tools';

let dir: string;
let ctx: ToolContext;
let http: Server;
let port: number;

const MAIN_PY = '# app entry point\ndef main():\n    print("Hello, World!")\n\nmain()\n';

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'gh-explain-'));
  mkdirSync(path.join(dir, 'src', 'app'), { recursive: true });
  writeFileSync(path.join(dir, 'src', 'app', 'main.py'), MAIN_PY);
  http = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('pong'));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  port = (http.address() as AddressInfo).port;
  ctx = { ws: await openWorkspace(dir), options: parseOptions({ http: { allow_hosts: [`127.0.0.1:${port}`] } }) };
});
afterAll(() => {
  http?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function explain(name: string, args: Record<string, unknown>): Promise<string> {
  const def = BUILTIN_TOOLS.find((t) => t.name === name)!;
  const result = await invokeTool(def, ctx, args);
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  const text = result._meta?.[EXPLANATION_META_KEY];
  expect(typeof text).toBe('string');
  return text as string;
}

describe('success explanations', () => {
  it('fs.read says it as the specification does', async () => {
    expect(MAIN_PY.length).toBe(65);
    expect(await explain('fs.read', { file_path: 'src/app/main.py', encoding: 'utf-8' })).toBe('Successfully read 65 characters from src/app/main.py using utf-8 encoding.');
    expect(await explain('fs.read', { file_path: 'src/app/main.py', max_chars: 3, encoding: 'latin1' })).toBe('Successfully read 3 characters from src/app/main.py using latin1 encoding.');
  });

  it('fs.write names the bytes, the file and whether it was new', async () => {
    expect(await explain('fs.write', { file_path: 'out/new.txt', content: 'héllo', create_parent_dirs: true })).toBe(
      'Successfully wrote 6 bytes to out/new.txt using utf-8 encoding (created a new file).',
    );
    expect(await explain('fs.write', { file_path: 'out/new.txt', content: 'x' })).toBe('Successfully wrote 1 byte to out/new.txt using utf-8 encoding (replaced the existing file).');
  });

  it('repo.apply_patch names the hunks and each file with what happened to it', async () => {
    writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
    const patch = '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n';
    expect(await explain('repo.apply_patch', { patch })).toBe('Successfully applied 2 hunks to 2 files: a.txt (modified), b.txt (created).');
  });

  it('process.exec names the program, the exit and the output sizes, not the output', async () => {
    const text = await explain('process.exec', { argv: ['sh', '-c', 'printf secret-output; exit 3'] });
    expect(text).toBe('Ran sh with 2 arguments in .: it exited with code 3, with 13 characters of stdout and 0 characters of stderr.');
    expect(text).not.toContain('secret-output');
  });

  it('net.http_request names the method, the URL without its query, the status and the body size', async () => {
    const text = await explain('net.http_request', { url: `http://127.0.0.1:${port}/ping?token=abc123` });
    expect(text).toBe(`GET http://127.0.0.1:${port}/ping answered 200 OK with 4 bytes of body (utf-8).`);
    expect(text).not.toContain('abc123');
  });

  it('repo.validate_change_set says how many would apply and which would not', async () => {
    expect(await explain('repo.validate_change_set', { changes: [{ path: 'c.txt', action: 'create', content: 'c' }] })).toBe(
      'Checked 1 change: every one would apply cleanly; nothing was written.',
    );
    expect(await explain('repo.validate_change_set', { changes: [{ path: 'c.txt', action: 'create', content: 'c' }, { path: 'gone.txt', action: 'delete' }] })).toMatch(
      /^Checked 2 changes: 1 would fail \(gone\.txt: \w+Error\); nothing was written\.$/,
    );
  });

  it('covers every built-in tool', () => {
    expect(BUILTIN_TOOLS.map((t) => t.name).sort()).toEqual(['fs.read', 'fs.write', 'net.http_request', 'process.exec', 'repo.apply_patch', 'repo.validate_change_set']);
  });
});
