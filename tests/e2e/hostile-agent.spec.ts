// A hostile agent (docs/security.md "What an agent can reach, per platform"), end to end: the attack that once worked. An agent started in a Gatehouse terminal
// hunts for a login code (the web shell's login file, every descriptor, environ and cmdline it
// can see under /proc), reads the host's /proc/<pid>/environ and fd/2, lists the data dir,
// connects to the approvals relay socket and the web shell's port, logs in with any code it
// found — and then asks the gateway for a write that needs a person's approval. It gets nothing,
// its call waits, and only a click in the window (a real Chromium) lets it through.
// The agent runs in its default sandbox (strict, bubblewrap): tests/fixtures/agents/hostile.mjs.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const here = path.dirname(fileURLToPath(import.meta.url));
const hostile = path.resolve(here, '../fixtures/agents/hostile.mjs');

const { test, serve } = serveForFile({
  profiles: {
    'e2e-hostile.yaml': `
name: e2e-hostile
workspace: \${scratch}
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: deny
  approval_timeout_s: 300
  rules:
    - { match: fs.read, decision: allow }
    - { match: fs.write, decision: approve, reason: "A person approves every write." }
agent:
  preset: custom
  command: node
  args: ["${hostile}", "--target", "\${scratch}/target.json", "--then-write", "by-person.txt"]
  autostart: true
`,
  },
});

type Report = Record<string, unknown> & { call?: unknown };
/** The agent's report, once it has written one (it writes it whole: temp file, then rename). */
function readReport(file: string): Report | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Report;
  } catch {
    return undefined;
  }
}

/** The pid of this spec's `gatehouse serve` (the host the agent attacks), found by its data dir. */
function servePid(dataDir: string): string {
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.includes('serve') && argv.includes(dataDir)) return pid;
    } catch {}
  }
  throw new Error(`no gatehouse serve process for ${dataDir}`);
}

test('a hostile agent gets no login code, no host API and no relay; its write waits for a person in the window', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const s = serve();
  const report = path.join(s.scratchDir, 'hostile-report.json');
  const hostPid = servePid(s.dataDir);
  // What the agent is told to attack: all real (the host's pid, data dir, relay socket, web port).
  writeFileSync(
    path.join(s.scratchDir, 'target.json'),
    JSON.stringify({ hostPid, dataDir: s.dataDir, relaySocket: path.join(s.dataDir, 'approvals.sock'), webPort: Number(new URL(s.origin).port), report }),
  );
  writeFileSync(path.join(s.scratchDir, 'note.txt'), 'gateway works\n');
  // Outside the sandbox those targets are really there: the login file holds a live code.
  expect(readFileSync(path.join(s.dataDir, 'web-login-url'), 'utf8')).toMatch(/login\?code=/);

  await openApp(page, s);
  await launchFromProfiles(page, 'e2e-hostile', 1);

  // The agent's write needs approval: its card comes to the window.
  const tray = page.getByRole('complementary', { name: 'Approvals tray' });
  const request = tray.getByRole('dialog', { name: /Approval request: write_file/ });
  await expect(request).toBeVisible({ timeout: 90_000 });
  await expect(request).toContainText('by-person.txt');
  await expect.poll(() => readReport(report) !== undefined, { timeout: 30_000 }).toBe(true);
  const got = readReport(report)!;
  await testInfo.attach('hostile-report', { body: JSON.stringify(got, null, 2), contentType: 'application/json' });
  expect(got.loginCodes).toBe(0);
  expect(got.loggedIn).toBe(false);
  expect(got.environ).toMatchObject({ ok: false });
  expect(got.stderr).toMatchObject({ ok: false });
  expect(got.procEnvirons).toBe(0);
  expect(got.relay).toMatchObject({ ok: false });
  expect(got.web).toMatchObject({ ok: false });
  // At most the mount point of its own run folder (its generated config): no audit store, no socket, no login file.
  const listed = got.dataDir as { ok: boolean; value?: unknown };
  expect(!listed.ok || (Array.isArray(listed.value) && listed.value.every((n) => n === 'run')), JSON.stringify(listed)).toBe(true);
  expect(got.gateway).toEqual({ ok: true, value: 'gateway works\n' });

  // Its call is still waiting: nothing it did answered it, and nothing was written.
  await page.waitForTimeout(2000);
  await expect(request).toBeVisible();
  expect(existsSync(path.join(s.scratchDir, 'by-person.txt'))).toBe(false);
  expect(readReport(report)?.call).toBeUndefined();
  await shot(page, testInfo, 'hostile-agent-call-waits');

  // A person answers in the window; only then does the write happen.
  await request.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect.poll(() => readReport(report)?.call, { timeout: 30_000 }).toMatchObject({ isError: false });
  expect(readFileSync(path.join(s.scratchDir, 'by-person.txt'), 'utf8')).toBe('approved by a person\n');

  await gotoView(page, 'Terminal');
  await expect(page.locator('.xterm-rows')).toContainText('HOSTILE', { timeout: 20_000 });
});
