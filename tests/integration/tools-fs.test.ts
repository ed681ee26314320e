// fs.read / fs.write through the real built server over stdio: happy paths, every error type and
// the confinement attacks of docs/security.md "Workspace confinement".
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { buildToolsServer, errorOf, makeTempDir, removeDir, startToolsServer, structured, type ToolsServerHandle } from '../fixtures/tools/harness';

let ws: string;
let outside: string;
let server: ToolsServerHandle | undefined;

beforeAll(async () => { await buildToolsServer(); });
beforeEach(() => {
  ws = makeTempDir('gh-ws-');
  outside = makeTempDir('gh-outside-');
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  removeDir(ws);
  removeDir(outside);
});

async function start(options?: unknown): Promise<ToolsServerHandle> {
  server = await startToolsServer(ws, options);
  return server;
}

describe('fs.read', () => {
  it('reads utf-8 relative and absolute, reporting chars and encoding', async () => {
    writeFileSync(path.join(ws, 'hello.txt'), 'héllo wörld 👋\n');
    const s = await start();
    const rel = await s.call('fs.read', { file_path: 'hello.txt' });
    expect(rel.isError).toBeFalsy();
    expect(structured(rel)).toEqual({ file_content: 'héllo wörld 👋\n', chars_read: 14, encoding_used: 'utf-8' });
    expect(JSON.parse((rel.content[0] as { text: string }).text)).toEqual(structured(rel));
    const abs = await s.call('fs.read', { file_path: path.join(ws, 'hello.txt') });
    expect(structured(abs).file_content).toBe('héllo wörld 👋\n');
  });

  it('honours max_chars without splitting a surrogate pair', async () => {
    writeFileSync(path.join(ws, 'emoji.txt'), 'a👋b👋c');
    const s = await start();
    expect(structured(await s.call('fs.read', { file_path: 'emoji.txt', max_chars: 2 }))).toEqual({ file_content: 'a👋', chars_read: 2, encoding_used: 'utf-8' });
    expect(structured(await s.call('fs.read', { file_path: 'emoji.txt', max_chars: 100 })).chars_read).toBe(5);
  });

  it('decodes latin1, utf-16le and ascii', async () => {
    writeFileSync(path.join(ws, 'l1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x80]));
    writeFileSync(path.join(ws, 'u16.txt'), Buffer.from('grüße', 'utf16le'));
    writeFileSync(path.join(ws, 'a.txt'), 'plain');
    const s = await start();
    expect(structured(await s.call('fs.read', { file_path: 'l1.txt', encoding: 'ISO-8859-1' }))).toEqual({ file_content: 'café\u0080', chars_read: 5, encoding_used: 'latin1' });
    expect(structured(await s.call('fs.read', { file_path: 'u16.txt', encoding: 'utf-16le' })).file_content).toBe('grüße');
    expect(structured(await s.call('fs.read', { file_path: 'a.txt', encoding: 'ascii' })).file_content).toBe('plain');
  });

  it('FileNotFoundError with error_details.path_attempted', async () => {
    const s = await start();
    const e = errorOf(await s.call('fs.read', { file_path: 'missing/nope.txt' }));
    expect(e.type).toBe('FileNotFoundError');
    expect(e.details.path_attempted).toBe('missing/nope.txt');
  });

  it('UnsupportedEncodingError names the encoding', async () => {
    writeFileSync(path.join(ws, 'a.txt'), 'x');
    const s = await start();
    const e = errorOf(await s.call('fs.read', { file_path: 'a.txt', encoding: 'klingon-8' }));
    expect(e.type).toBe('UnsupportedEncodingError');
    expect(e.message).toContain('klingon-8');
    expect(e.details.path_attempted).toBe('a.txt');
  });

  it('DecodeError names the encoding that failed and the server keeps serving', async () => {
    writeFileSync(path.join(ws, 'bin.dat'), Buffer.from([0x61, 0xff, 0xfe, 0x00, 0xc3]));
    writeFileSync(path.join(ws, 'hi.txt'), 'é');
    const s = await start();
    const e = errorOf(await s.call('fs.read', { file_path: 'bin.dat' }));
    expect(e.type).toBe('DecodeError');
    expect(e.message).toContain('utf-8');
    expect(e.details.encoding).toBe('utf-8');
    expect(errorOf(await s.call('fs.read', { file_path: 'hi.txt', encoding: 'ascii' })).message).toContain('ascii');
    expect(structured(await s.call('fs.read', { file_path: 'hi.txt' })).file_content).toBe('é');
  });

  it('FileTooLargeError over max_read_bytes, and a bounded prefix with max_chars', async () => {
    writeFileSync(path.join(ws, 'big.txt'), 'x'.repeat(5000));
    const s = await start({ max_read_bytes: 1000 });
    const e = errorOf(await s.call('fs.read', { file_path: 'big.txt' }));
    expect(e.type).toBe('FileTooLargeError');
    expect(e.details).toMatchObject({ path_attempted: 'big.txt', size_bytes: 5000, max_read_bytes: 1000 });
    expect(structured(await s.call('fs.read', { file_path: 'big.txt', max_chars: 10 }))).toEqual({ file_content: 'x'.repeat(10), chars_read: 10, encoding_used: 'utf-8' });
    // The prefix cannot hold max_chars characters within the cap: still FileTooLargeError.
    expect(errorOf(await s.call('fs.read', { file_path: 'big.txt', max_chars: 2000 })).type).toBe('FileTooLargeError');
  });

  it('PermissionError on an unreadable file (server runs unprivileged)', async () => {
    writeFileSync(path.join(ws, 'locked.txt'), 'no');
    chmodSync(path.join(ws, 'locked.txt'), 0o000);
    chmodSync(ws, 0o777);
    server = await startToolsServer(ws, undefined, { unprivileged: true });
    const e = errorOf(await server.call('fs.read', { file_path: 'locked.txt' }));
    expect(e.type).toBe('PermissionError');
    expect(e.details.path_attempted).toBe('locked.txt');
  });

  it('NotAFileError for a folder and for a FIFO (which must not hang the server)', async () => {
    mkdirSync(path.join(ws, 'dir'));
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    const s = await start();
    expect(errorOf(await s.call('fs.read', { file_path: 'dir' })).type).toBe('NotAFileError');
    expect(errorOf(await s.call('fs.read', { file_path: 'pipe' })).type).toBe('NotAFileError');
  });

  it('InvalidArgumentError (structured) when the arguments do not match the input schema', async () => {
    const s = await start();
    const e = errorOf(await s.call('fs.read', { file_path: 42 }));
    expect(e.type).toBe('InvalidArgumentError');
    expect(e.details.path_attempted).toBeNull();
    expect(errorOf(await s.call('fs.read', { file_path: 'a', max_chars: 0 })).type).toBe('InvalidArgumentError');
  });
});

describe('confinement attacks', () => {
  const refused = async (s: ToolsServerHandle, file_path: string, reason?: string): Promise<void> => {
    const e = errorOf(await s.call('fs.read', { file_path }));
    expect(e.type, `${JSON.stringify(file_path)}: ${e.message}`).toBe('PathOutsideWorkspaceError');
    expect(e.details.path_attempted).toBe(file_path);
    if (reason) expect(e.details.reason).toBe(reason);
  };

  it('refuses .., absolute outside, drive, UNC and NUL forms', async () => {
    const s = await start();
    await refused(s, '../' + path.basename(outside) + '/secret.txt', 'dot_dot');
    await refused(s, 'a/../../x', 'dot_dot');
    await refused(s, '..\\..\\etc\\passwd', 'dot_dot');
    await refused(s, path.join(outside, 'secret.txt'), 'absolute_outside');
    await refused(s, '/etc/passwd', 'absolute_outside');
    await refused(s, 'C:\\Windows\\win.ini', 'windows_drive');
    await refused(s, 'c:/Windows/win.ini', 'windows_drive');
    await refused(s, 'C:relative.txt', 'windows_drive');
    await refused(s, '\\\\server\\share\\file.txt', 'unc');
    await refused(s, '//server/share/file.txt', 'unc');
    await refused(s, '\\\\?\\C:\\x', 'unc');
    await refused(s, 'ok.txt\0../../etc/passwd', 'nul_byte');
  });

  it('refuses a symlinked file or folder that points out, for reads and writes', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    symlinkSync(outside, path.join(ws, 'linkdir'));
    symlinkSync(path.join(outside, 'not-yet.txt'), path.join(ws, 'dangling.txt'));
    const s = await start();
    await refused(s, 'link.txt', 'symlink_outside');
    await refused(s, 'linkdir/secret.txt', 'symlink_outside');
    for (const file_path of ['link.txt', 'linkdir/new.txt', 'dangling.txt', 'linkdir/sub/new.txt']) {
      const e = errorOf(await s.call('fs.write', { file_path, content: 'pwned', create_parent_dirs: true }));
      expect(e.type, file_path).toBe('PathOutsideWorkspaceError');
    }
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('follows symlinks that stay inside the workspace', async () => {
    mkdirSync(path.join(ws, 'real'));
    writeFileSync(path.join(ws, 'real', 'f.txt'), 'inside');
    symlinkSync(path.join(ws, 'real'), path.join(ws, 'alias'));
    const s = await start();
    expect(structured(await s.call('fs.read', { file_path: 'alias/f.txt' })).file_content).toBe('inside');
  });

  it('never leaks outside content while a folder flips between inside and a link out (real race)', async () => {
    // A real check/use race: the folder `flip` is swapped between a real folder and a symlink to
    // the outside folder as fast as a child process can, while reads hammer it. Whether or not a
    // given read lands in the window, no read may ever return the outside file. The deterministic
    // version of this attack (swap exactly between check and open) is in main/tools/confine.test.ts.
    mkdirSync(path.join(ws, 'flip'));
    writeFileSync(path.join(ws, 'flip', 'secret.txt'), 'inside copy\n');
    const s = await start();
    const flipper = `
      const fs = require('node:fs');
      const ws = ${JSON.stringify(ws)}, out = ${JSON.stringify(outside)};
      const end = Date.now() + 60000;
      while (Date.now() < end) {
        try { fs.renameSync(ws + '/flip', ws + '/flip.real'); fs.symlinkSync(out, ws + '/flip'); } catch {}
        try { fs.unlinkSync(ws + '/flip'); fs.renameSync(ws + '/flip.real', ws + '/flip'); } catch {}
      }`;
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', flipper], { stdio: 'ignore' });
    try {
      const unexpected: string[] = [];
      for (let i = 0; i < 300; i++) {
        const r = await s.call('fs.read', { file_path: 'flip/secret.txt' });
        if (!r.isError) expect(structured(r).file_content).toBe('inside copy\n');
        else if (!['PathOutsideWorkspaceError', 'FileNotFoundError'].includes(errorOf(r).type)) unexpected.push(`${errorOf(r).type}: ${errorOf(r).message}`);
      }
      expect(unexpected).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('fs.write', () => {
  it('creates, overwrites atomically and leaves no temp files', async () => {
    const s = await start();
    const created = structured(await s.call('fs.write', { file_path: 'notes.md', content: 'one\n' }));
    expect(created).toEqual({ path: 'notes.md', bytes_written: 4, created: true, encoding_used: 'utf-8' });
    const replaced = structured(await s.call('fs.write', { file_path: path.join(ws, 'notes.md'), content: 'two 👋\n' }));
    expect(replaced).toMatchObject({ created: false, bytes_written: 9 });
    expect(readFileSync(path.join(ws, 'notes.md'), 'utf8')).toBe('two 👋\n');
    expect(readdirSync(ws)).toEqual(['notes.md']);
  });

  it('creates parent folders only when asked, and writes other encodings', async () => {
    const s = await start();
    expect(errorOf(await s.call('fs.write', { file_path: 'a/b/c.txt', content: 'x' })).type).toBe('FileNotFoundError');
    expect(existsSync(path.join(ws, 'a'))).toBe(false);
    expect(structured(await s.call('fs.write', { file_path: 'a/b/c.txt', content: 'café', encoding: 'latin1', create_parent_dirs: true }))).toMatchObject({ path: 'a/b/c.txt', bytes_written: 4, encoding_used: 'latin1' });
    expect(readFileSync(path.join(ws, 'a/b/c.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  });

  it('FileExistsError, FileTooLargeError, EncodeError, UnsupportedEncodingError, NotAFileError', async () => {
    writeFileSync(path.join(ws, 'keep.txt'), 'keep');
    mkdirSync(path.join(ws, 'folder'));
    const s = await start({ max_write_bytes: 16 });
    const exists = errorOf(await s.call('fs.write', { file_path: 'keep.txt', content: 'x', overwrite: false }));
    expect(exists.type).toBe('FileExistsError');
    const big = errorOf(await s.call('fs.write', { file_path: 'big.txt', content: 'x'.repeat(17) }));
    expect(big).toMatchObject({ type: 'FileTooLargeError', details: { size_bytes: 17, max_write_bytes: 16, path_attempted: 'big.txt' } });
    expect(errorOf(await s.call('fs.write', { file_path: 'e.txt', content: 'snow ☃', encoding: 'latin1' })).type).toBe('EncodeError');
    expect(errorOf(await s.call('fs.write', { file_path: 'e.txt', content: 'x', encoding: 'ebcdic' })).type).toBe('UnsupportedEncodingError');
    expect(errorOf(await s.call('fs.write', { file_path: 'folder', content: 'x' })).type).toBe('NotAFileError');
    expect(readFileSync(path.join(ws, 'keep.txt'), 'utf8')).toBe('keep');
    expect(readdirSync(ws).sort()).toEqual(['folder', 'keep.txt']);
  });

  it('PermissionError in a read-only folder (server runs unprivileged)', async () => {
    mkdirSync(path.join(ws, 'ro'));
    chmodSync(path.join(ws, 'ro'), 0o555);
    chmodSync(ws, 0o777);
    server = await startToolsServer(ws, undefined, { unprivileged: true });
    const e = errorOf(await server.call('fs.write', { file_path: 'ro/x.txt', content: 'x' }));
    expect(e.type).toBe('PermissionError');
    expect(e.details.path_attempted).toBe('ro/x.txt');
  });

  it('PathOutsideWorkspaceError for write attacks', async () => {
    const s = await start();
    for (const file_path of ['../escape.txt', path.join(outside, 'x.txt'), 'C:\\x.txt', '//srv/share/x', 'x\0y']) {
      expect(errorOf(await s.call('fs.write', { file_path, content: 'x', create_parent_dirs: true })).type, file_path).toBe('PathOutsideWorkspaceError');
    }
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });
});

describe('server command line', () => {
  it('exits 2 with a clear message on bad options', async () => {
    const { spawnSync } = await import('node:child_process');
    const { SERVER_ENTRY } = await import('../fixtures/tools/harness');
    const bad = spawnSync(process.execPath, [SERVER_ENTRY, '--workspace', ws, '--options', '{"max_read_bytes":"lots"}'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('max_read_bytes');
    const unknown = spawnSync(process.execPath, [SERVER_ENTRY, '--workspace', ws, '--options', '{"exec":{"shell":true}}'], { encoding: 'utf8' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('shell');
    const noWs = spawnSync(process.execPath, [SERVER_ENTRY], { encoding: 'utf8' });
    expect(noWs.status).toBe(2);
    expect(noWs.stderr).toContain('--workspace');
    rmSync(path.join(ws, 'nothing'), { force: true });
    const missing = spawnSync(process.execPath, [SERVER_ENTRY, '--workspace', path.join(ws, 'nothing')], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
  });
});
