// The files that decide what runs (docs/security.md "The files that decide what runs",
// docs/trust.md "Program pinning", "The profile's own identity"), attacked from inside real bwrap sandboxes and edited on disk:
// a server whose workspace is the profile's folder cannot rewrite its profile or another profile
// in the profiles folder; server A cannot rewrite server B's script in a shared workspace; what
// still changes on disk (the user's editor, a package update) is held for review: a changed
// policy, a swapped secret reference, a replaced script or executable. Real bwrap, real
// processes (tests/fixtures/servers/probe-server.mjs runs the JavaScript the test sends), and an
// agent terminal (a real pty) whose workspace is the profile's folder.
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Host, type Launch } from '../../main/host';
import { forgetSandboxAvailability } from '../../main/sandbox/availability';
import { PROFILE_REVIEW } from '../../main/trust/profile-identity';
import { tempDir } from '../support/temp';
import { serverFixture, waitFor } from '../support/supervisor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  forgetSandboxAvailability();
});

interface World {
  dir: string;
  dataDir: string;
  profilesDir: string;
  host: Host;
}

/** A temp folder (the profile's, and its workspace), a user profiles folder inside it, a fake $HOME. */
function world(): World {
  const tmp = tempDir('gh-pins-');
  const home = mkdtempSync('/var/tmp/gatehouse-home-');
  cleanups.push(tmp.cleanup, () => rmSync(home, { recursive: true, force: true }));
  const dataDir = path.join(tmp.dir, 'data');
  const profilesDir = path.join(tmp.dir, 'profiles');
  mkdirSync(profilesDir);
  const host = new Host({ dataDir, env: { ...process.env, HOME: home, GATEHOUSE_PROFILES_DIR: profilesDir }, stdinGraceMs: 300, termGraceMs: 500 });
  cleanups.push(() => host.shutdown());
  return { dir: tmp.dir, dataDir, profilesDir, host };
}

function probe(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [serverFixture('probe-server.mjs')], restart: { max_restarts: 0 }, ...extra };
}

function writeYaml(file: string, doc: Record<string, unknown>): string {
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return file;
}

async function run(launch: Launch, server: string, code: string): Promise<string> {
  const s = launch.supervisor.get(server)!;
  if (!s.client) throw new Error(`${server} is ${s.status().state}: ${s.status().reason}`);
  const res = await s.client.request({ method: 'tools/call', params: { name: 'run', arguments: { code } } }, CallToolResultSchema);
  return (res.content[0] as { text: string }).text;
}

const js = (v: string) => JSON.stringify(v);
const sha12 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);

describe('the profile file and the profiles folder, from inside a sandbox', () => {
  it('a server whose workspace is the profile folder cannot rewrite, replace or remove its profile, nor any profile in the profiles folder', async () => {
    const w = world();
    const other = writeYaml(path.join(w.profilesDir, 'other.yaml'), { name: 'other', workspace: '.', policy: { default: 'approve' }, servers: { x: probe() } });
    // Even an explicit write grant of the profiles folder does not make it writable.
    const file = writeYaml(path.join(w.dir, 'gatehouse.yaml'), { name: 'self', workspace: '.', policy: { default: 'approve' }, servers: { probe: probe({ sandbox: { write: [w.profilesDir] } }) } });
    const before = { self: readFileSync(file, 'utf8'), other: readFileSync(other, 'utf8') };
    const launch = await w.host.launch(file);
    expect(launch.supervisor.get('probe')!.status().state, launch.supervisor.get('probe')!.status().reason).toBe('ready');

    // The workspace itself stays writable: the same write beside the profile works.
    expect(await run(launch, 'probe', `fs.writeFileSync(${js(path.join(w.dir, 'note.txt'))}, 'ok'); return 'wrote'`)).toBe('"wrote"');
    const swapped = before.self.replace('"approve"', '"allow"');
    expect(await run(launch, 'probe', `fs.writeFileSync(${js(file)}, ${js(swapped)}); return 'wrote'`)).toMatch(/^ERR (EROFS|EACCES)/);
    expect(await run(launch, 'probe', `fs.writeFileSync(${js(path.join(w.dir, 'evil.yaml'))}, ${js(swapped)}); fs.renameSync(${js(path.join(w.dir, 'evil.yaml'))}, ${js(file)}); return 'renamed'`)).toMatch(/^ERR (EROFS|EACCES|EBUSY)/);
    expect(await run(launch, 'probe', `fs.unlinkSync(${js(file)}); return 'removed'`)).toMatch(/^ERR (EROFS|EACCES|EBUSY)/);
    expect(await run(launch, 'probe', `fs.appendFileSync(${js(other)}, 'policy: { default: allow }'); return 'wrote'`)).toMatch(/^ERR (EROFS|EACCES)/);
    expect(await run(launch, 'probe', `fs.writeFileSync(${js(path.join(w.profilesDir, 'new.yaml'))}, 'servers: {}'); return 'wrote'`)).toMatch(/^ERR (EROFS|EACCES)/);
    expect(readFileSync(file, 'utf8')).toBe(before.self);
    expect(readFileSync(other, 'utf8')).toBe(before.other);
  }, 60_000);

  it('an imported profile (workspace: . inside the profiles folder) cannot rewrite the profile beside it', async () => {
    const w = world();
    const other = writeYaml(path.join(w.profilesDir, 'other.yaml'), { name: 'other', workspace: '.', policy: { default: 'approve' }, servers: { x: probe() } });
    const file = writeYaml(path.join(w.profilesDir, 'imported.yaml'), { name: 'imported', workspace: '.', policy: { default: 'approve' }, servers: { probe: probe() } });
    const launch = await w.host.launch('imported');
    expect(launch.profile.workspace).toBe(w.profilesDir);
    expect(launch.supervisor.get('probe')!.status().state, launch.supervisor.get('probe')!.status().reason).toBe('ready');
    expect(await run(launch, 'probe', `fs.writeFileSync(${js(other)}, 'x'); return 'wrote'`)).toMatch(/^ERR (EROFS|EACCES)/);
    expect(await run(launch, 'probe', `fs.writeFileSync(${js(file)}, 'x'); return 'wrote'`)).toMatch(/^ERR (EROFS|EACCES)/);
  }, 60_000);
});

describe('what changed on disk since it was approved', () => {
  it('a policy default changed from approve to allow keeps every server stopped until the profile is reviewed', async () => {
    const w = world();
    const doc = { name: 'pol', workspace: '.', policy: { default: 'approve' }, servers: { probe: probe() } };
    const file = writeYaml(path.join(w.dir, 'gatehouse.yaml'), doc);
    const first = await w.host.launch(file);
    expect(first.supervisor.get('probe')!.status().state).toBe('ready');
    await w.host.stop(first.id);

    // The user's editor (or anything else outside a sandbox) changes the policy.
    writeYaml(file, { ...doc, policy: { default: 'allow' } });
    const second = await w.host.launch(file);
    const status = second.supervisor.get('probe')!.status();
    expect(status.state).not.toBe('ready');
    expect(status.pid).toBeUndefined();
    expect(status.reason).toMatch(/waiting for approval: the profile's policy changed \(policyDefault\)/);
    const review = second.trust.reviews().launch.find((r) => r.server === PROFILE_REVIEW)!;
    expect(review).toMatchObject({ status: 'changed', changed: ['policyDefault'] });
    expect(review.previousLines?.find((l) => l.field === 'policyDefault')?.value).toBe('approve');
    expect(review.lines.find((l) => l.field === 'policyDefault')?.value).toBe('allow');
    // Nothing to call: the server never started.
    expect(second.supervisor.get('probe')!.client).toBeUndefined();

    await second.trust.decide({ server: PROFILE_REVIEW, choice: 'approve', by: 'test-person' });
    expect(second.supervisor.get('probe')!.status().state).toBe('ready');
  }, 60_000);

  it('turning the trifecta guard off (policy.flow: off) asks again, in words; a profile that never wrote it kept its hash', async () => {
    const w = world();
    const doc = { name: 'flowpol', workspace: '.', policy: { default: 'allow' }, servers: { probe: probe() } };
    const file = writeYaml(path.join(w.dir, 'gatehouse.yaml'), doc);
    const first = await w.host.launch(file);
    expect(first.supervisor.get('probe')!.status().state).toBe('ready');
    await w.host.stop(first.id);

    writeYaml(file, { ...doc, policy: { ...doc.policy, flow: 'off', data: { results: 'allow', arguments: 'allow' } } });
    const second = await w.host.launch(file);
    expect(second.supervisor.get('probe')!.status().state).not.toBe('ready');
    const review = second.trust.reviews().launch.find((r) => r.server === PROFILE_REVIEW)!;
    expect(review).toMatchObject({ status: 'changed' });
    expect([...review.changed].sort()).toEqual(['policyData', 'policyFlow']);
    expect(review.lines.find((l) => l.field === 'policyFlow')).toMatchObject({ label: 'Trifecta guard (policy.flow)', value: 'off' });
    expect(review.lines.find((l) => l.field === 'policyData')?.value).toBe('results allow · arguments allow');
    await second.trust.decide({ server: PROFILE_REVIEW, choice: 'approve', by: 'test-person' });
    expect(second.supervisor.get('probe')!.status().state).toBe('ready');
  }, 60_000);

  it('a swapped secret reference (${secret:OWN} → ${secret:OTHER}) asks again, without showing either value', async () => {
    const w = world();
    const env = { GATEHOUSE_SECRET_OWN: 'own-value-1', GATEHOUSE_SECRET_OTHER: 'other-value-2' };
    Object.assign(process.env, env);
    cleanups.push(() => {
      for (const k of Object.keys(env)) delete process.env[k];
    });
    const host = new Host({ dataDir: w.dataDir, env: { ...process.env }, stdinGraceMs: 300, termGraceMs: 500 });
    cleanups.push(() => host.shutdown());
    const doc = (ref: string) => ({ name: 'sec', workspace: '.', policy: { default: 'allow' }, servers: { probe: probe({ env: { TOKEN: ref } }) } });
    const file = writeYaml(path.join(w.dir, 'gatehouse.yaml'), doc('${secret:OWN}'));
    const first = await host.launch(file);
    expect(first.supervisor.get('probe')!.status().state).toBe('ready');
    await host.stop(first.id);

    writeYaml(file, doc('${secret:OTHER}'));
    const second = await host.launch(file);
    expect(second.supervisor.get('probe')!.status().reason).toMatch(/launch command changed \(envRefs\)/);
    const review = second.trust.reviews().launch.find((r) => r.server === 'probe')!;
    expect(review.previousLines?.find((l) => l.field === 'envRefs')?.value).toBe('TOKEN=${secret:OWN}');
    expect(review.lines.find((l) => l.field === 'envRefs')?.value).toBe('TOKEN=${secret:OTHER}');
    expect(JSON.stringify(review)).not.toMatch(/own-value-1|other-value-2/);
  }, 60_000);
});

describe("one server's program, from another server's sandbox and on disk", () => {
  /** Two servers in one workspace: `a` the probe fixture, `b` a copy of it in the workspace, and `c` a shell-script executable there. */
  function shared(w: World) {
    const ws = path.join(w.dir, 'ws');
    mkdirSync(path.join(ws, 'bin'), { recursive: true });
    const script = path.join(ws, 'b.mjs');
    copyFileSync(serverFixture('probe-server.mjs'), script);
    const exe = path.join(ws, 'bin', 'c-server');
    writeFileSync(exe, `#!/bin/sh\nexec ${js(process.execPath)} ${js(serverFixture('probe-server.mjs'))} "$@"\n`);
    chmodSync(exe, 0o755);
    const file = writeYaml(path.join(w.dir, 'gatehouse.yaml'), {
      name: 'shared',
      workspace: './ws',
      policy: { default: 'allow' },
      servers: { a: probe(), b: { command: process.execPath, args: [script], restart: { max_restarts: 0 } }, c: { command: exe, restart: { max_restarts: 0 } } },
    });
    return { ws, script, exe, file };
  }

  it("server A cannot rewrite server B's script or C's executable in the shared workspace (read-only bind), though it writes beside them", async () => {
    const w = world();
    const s = shared(w);
    const before = { script: readFileSync(s.script, 'utf8'), exe: readFileSync(s.exe, 'utf8') };
    const launch = await w.host.launch(s.file);
    for (const id of ['a', 'b', 'c']) expect(launch.supervisor.get(id)!.status().state, `${id}: ${launch.supervisor.get(id)!.status().reason}`).toBe('ready');
    expect(await run(launch, 'a', `fs.writeFileSync(${js(path.join(s.ws, 'x.txt'))}, 'ok'); return 'wrote'`)).toBe('"wrote"');
    expect(await run(launch, 'a', `fs.writeFileSync(${js(s.script)}, 'process.exit(0)'); return 'wrote'`)).toMatch(/^ERR (EROFS|EACCES)/);
    expect(await run(launch, 'a', `fs.renameSync(${js(path.join(s.ws, 'x.txt'))}, ${js(s.script)}); return 'renamed'`)).toMatch(/^ERR (EROFS|EACCES|EBUSY)/);
    expect(await run(launch, 'a', `fs.writeFileSync(${js(s.exe)}, '#!/bin/sh\\necho pwned'); return 'wrote'`)).toMatch(/^ERR (EROFS|EACCES)/);
    expect(readFileSync(s.script, 'utf8')).toBe(before.script);
    expect(readFileSync(s.exe, 'utf8')).toBe(before.exe);
  }, 60_000);

  it('a script or an executable replaced on disk (outside any sandbox) is held as "program changed" with the old and new hashes', async () => {
    const w = world();
    const s = shared(w);
    const first = await w.host.launch(s.file);
    for (const id of ['a', 'b', 'c']) expect(first.supervisor.get(id)!.status().state).toBe('ready');
    await w.host.stop(first.id);
    const old = { script: sha12(s.script), exe: sha12(s.exe) };

    writeFileSync(s.script, `${readFileSync(s.script, 'utf8')}\n// changed by an update\n`);
    writeFileSync(s.exe, `${readFileSync(s.exe, 'utf8')}# replaced\n`);
    const now = { script: sha12(s.script), exe: sha12(s.exe) };
    const second = await w.host.launch(s.file);
    expect(second.supervisor.get('a')!.status().state).toBe('ready');
    const b = second.supervisor.get('b')!.status();
    expect(b.state).not.toBe('ready');
    expect(b.reason).toContain(`program changed (entry ${s.script} sha256:${old.script} → sha256:${now.script})`);
    const c = second.supervisor.get('c')!.status();
    expect(c.state).not.toBe('ready');
    expect(c.reason).toContain(`program changed (executable ${s.exe} sha256:${old.exe} → sha256:${now.exe})`);
    const review = second.trust.reviews().launch.find((r) => r.server === 'b')!;
    expect(review.changed).toEqual(['program']);
    expect(review.previousLines?.find((l) => l.field === 'program')?.value).toContain(`sha256:${old.script}`);
    expect(review.lines.find((l) => l.field === 'program')?.value).toContain(`sha256:${now.script}`);
  }, 60_000);
});

describe('the profile file, from inside an agent terminal', () => {
  it("an agent whose workspace is the profile's folder cannot rewrite its profile (a real pty in real bwrap), though it writes beside it", async () => {
    const w = world();
    const file = path.join(w.dir, 'gatehouse.yaml');
    const code = `const fs = require('fs'); const r = {}; for (const [k, p] of [['profile', ${js(file)}], ['beside', ${js(path.join(w.dir, 'agent-note.txt'))}]]) { try { fs.appendFileSync(p, '# agent'); r[k] = 'wrote'; } catch (e) { r[k] = e.code; } } console.log('RESULT ' + JSON.stringify(r));`;
    writeYaml(file, { name: 'agented', workspace: '.', policy: { default: 'approve' }, servers: {}, agent: { preset: 'custom', command: process.execPath, args: ['-e', code], autostart: false } });
    const before = readFileSync(file, 'utf8');
    const launch = await w.host.launch(file, { httpPort: 0 });
    const opened = await w.host.openTerminal(launch.id);
    if ('unavailable' in opened) throw new Error(opened.unavailable);
    const session = w.host.terminals.get(opened.id)!;
    let output = session.replay();
    session.on('data', (d) => (output += d));
    await waitFor(() => session.status().exit !== undefined, { timeoutMs: 60_000, what: 'the agent to exit' });
    const line = /RESULT (\{.*\})/.exec(output.replace(/\r?\n/g, '\n'));
    expect(line, output).not.toBeNull();
    const result = JSON.parse(line![1]!) as Record<string, string>;
    expect(result.beside).toBe('wrote');
    expect(result.profile).toMatch(/^(EROFS|EACCES)$/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 90_000);
});
