// The symlink-swap race against the real tools server (issue: 4 files written outside in 15 s,
// each call reporting success, 209 temp files left outside). A Python helper exchanges a
// workspace folder and a symlink to an outside folder with renameat2(RENAME_EXCHANGE) in a loop
// while write_file and apply_patch write into that folder, for RACE_SECONDS. Afterwards nothing
// may be outside but the canary, no temp file anywhere, every failure is
// PathOutsideWorkspaceError, and every reported success is a file inside the workspace with the
// content that was written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync, linkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildToolsServer, errorOf, makeTempDir, removeDir, startToolsServer, structured, type ToolsServerHandle } from '../fixtures/tools/harness';

const RACE_SECONDS = 15;
const HELPER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'tools', 'swap-race.py');
const python = ['/usr/bin/python3', 'python3'].find((p) => p.startsWith('/') ? existsSync(p) : true)!;

let ws: string;
let outsideDir: string;
let server: ToolsServerHandle;

/** Every entry below `dir` (names relative to it), not following symlinks. */
function walk(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    out.push(prefix + name);
    if (lstatSync(p).isDirectory()) out.push(...walk(p, `${prefix}${name}/`));
  }
  return out;
}

beforeAll(async () => {
  await buildToolsServer();
  ws = makeTempDir('gh-race-ws-');
  outsideDir = makeTempDir('gh-race-out-');
  writeFileSync(path.join(outsideDir, 'canary.txt'), 'outside\n');
  mkdirSync(path.join(ws, 'sub'));
  symlinkSync(outsideDir, path.join(ws, 'link'));
  server = await startToolsServer(ws);
});

afterAll(async () => {
  await server?.close();
  removeDir(ws);
  removeDir(outsideDir);
});

describe.runIf(process.platform === 'linux')('symlink-swap race against write_file and apply_patch', () => {
  it(`${RACE_SECONDS} s of renameat2(RENAME_EXCHANGE): 0 files and 0 temp files outside, failures are PathOutsideWorkspaceError`, async () => {
    const racer = spawn(python, [HELPER, path.join(ws, 'sub'), path.join(ws, 'link'), String(RACE_SECONDS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let racerOut = '';
    let racerErr = '';
    racer.stdout.on('data', (c: Buffer) => (racerOut += c.toString()));
    racer.stderr.on('data', (c: Buffer) => (racerErr += c.toString()));
    const racerDone = new Promise<number | null>((r) => racer.once('exit', r));
    let running = true;
    void racerDone.then(() => (running = false));

    const successes: Array<{ name: string; content: string; path: string }> = [];
    const failures = new Map<string, number>();
    let calls = 0;
    const writer = async (kind: 'write' | 'patch') => {
      for (let n = 0; running; n++) {
        const name = `${kind}-${n}.txt`;
        const content = `${kind} ${n}\n`;
        const r =
          kind === 'write'
            ? await server.call('fs.write', { file_path: `sub/${name}`, content })
            : await server.call('repo.apply_patch', { patch: `--- /dev/null\n+++ b/sub/${name}\n@@ -0,0 +1 @@\n+${content}` });
        calls++;
        if (r.isError) {
          const e = errorOf(r);
          failures.set(e.type, (failures.get(e.type) ?? 0) + 1);
          if (e.type !== 'PathOutsideWorkspaceError' && failures.size < 8) failures.set(`${e.type}: ${e.message}`, 1);
        } else {
          const s = structured(r);
          successes.push({ name, content, path: kind === 'write' ? s.path : s.files[0].path });
        }
      }
    };
    await Promise.all([writer('write'), writer('patch'), writer('write')]);
    expect(await racerDone, racerErr).toBe(0);

    const outsideNow = walk(outsideDir);
    const temps = walk(ws).filter((n) => n.includes('.gatehouse-'));
    process.stderr.write(
      `swap race: ${racerOut.trim()} exchanges, ${calls} calls, ${successes.length} succeeded, failures ${JSON.stringify(Object.fromEntries(failures))}; ` +
        `outside: ${outsideNow.length - 1} stray file(s), temp files left: ${temps.length}\n`,
    );
    expect(outsideNow, 'nothing written outside the workspace').toEqual(['canary.txt']);
    expect(temps, 'no temp file left in the workspace').toEqual([]);
    expect([...failures.keys()].filter((k) => k !== 'PathOutsideWorkspaceError'), 'every failure is PathOutsideWorkspaceError').toEqual([]);
    expect(calls).toBeGreaterThan(20);
    expect(successes.length).toBeGreaterThan(0);
    expect(failures.get('PathOutsideWorkspaceError') ?? 0, 'the race was really run into').toBeGreaterThan(0);
    // Every success landed inside. Its reported path is where the folder was at that instant
    // (sub/ or, exchanged, link/); the folder itself is back at sub/ now (an even number of swaps).
    for (const s of successes) {
      expect([`sub/${s.name}`, `link/${s.name}`], 'reported path').toContain(s.path);
      expect(readFileSync(path.join(ws, 'sub', s.name), 'utf8'), s.path).toBe(s.content);
    }
  }, (RACE_SECONDS + 90) * 1000);

  it('read_file refuses a hard link to an outside file, and reads it when the profile allows', async () => {
    writeFileSync(path.join(outsideDir, 'hl-secret.txt'), 'SECRET through a hard link\n');
    linkSync(path.join(outsideDir, 'hl-secret.txt'), path.join(ws, 'innocent.txt'));
    const e = errorOf(await server.call('fs.read', { file_path: 'innocent.txt' }));
    expect(e.type).toBe('PathOutsideWorkspaceError');
    expect(e.details.reason).toBe('hard_link');
    expect(e.message).toContain('2 hard links');
    expect(e.message).toContain('allow_hardlinked_reads');
    // apply_patch reads through the same door.
    const p = errorOf(await server.call('repo.apply_patch', { patch: '--- a/innocent.txt\n+++ b/innocent.txt\n@@ -1 +1 @@\n-SECRET through a hard link\n+x\n' }));
    expect(p.type).toBe('PathOutsideWorkspaceError');
    const allowing = await startToolsServer(ws, { allow_hardlinked_reads: true });
    try {
      expect(structured(await allowing.call('fs.read', { file_path: 'innocent.txt' })).file_content).toBe('SECRET through a hard link\n');
    } finally {
      await allowing.close();
    }
  });
});
