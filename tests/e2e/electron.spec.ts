// The desktop app through Playwright's `_electron`: the same flows as the web shell's specs
// (launch the demo, servers ready, a tool-console call in Traffic, an approval allowed and one
// denied, a server's stderr in Logs), plus the Electron security settings seen from outside.
//
// Skipped, with the reason printed, where there is no Electron binary (electron's postinstall
// download skipped or blocked) or no display. This file never asks for the `page`/`browser`
// fixtures, so the Chromium project settings in playwright.config.ts launch nothing for it.
import { existsSync, accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import type { CommandInput, CommandName, CommandOutput, LaunchSummarySchema } from '../../common/host-api';
import type { z } from 'zod';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = path.join(ROOT, 'out', 'electron', 'main.cjs');

/**
 * Where `require('electron')` would point, without calling it: electron's index.js downloads the
 * binary when it is missing, and a test must never download. Same rule as scripts/start.mjs.
 */
function electronBinary(): { binary?: string; reason?: string } {
  const pkg = path.join(ROOT, 'node_modules', 'electron');
  const pathFile = path.join(pkg, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const dist = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? path.join(pkg, 'dist');
  const binary = path.join(dist, rel ?? (process.platform === 'win32' ? 'electron.exe' : 'electron'));
  if (!rel && !process.env.ELECTRON_OVERRIDE_DIST_PATH) return { reason: `no Electron binary: ${pathFile} is missing (the download was skipped), so ${binary} does not exist` };
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    return { reason: `no Electron binary: ${binary} does not exist or is not executable` };
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return { reason: 'no display for Electron (DISPLAY and WAYLAND_DISPLAY are unset; try xvfb-run)' };
  if (!existsSync(MAIN)) return { reason: `${MAIN} is missing: run npm run build` };
  return { binary };
}

const probe = electronBinary();
if (!probe.binary) process.stderr.write(`electron.spec.ts: skipped: ${probe.reason}\n`);

type Launch = z.infer<typeof LaunchSummarySchema>;

/** Calls the host API through the preload bridge, as the renderer does. */
function bridgeCall<C extends CommandName>(page: Page, command: C, input: CommandInput<C>): Promise<CommandOutput<C>> {
  return page.evaluate(
    // Runs in the page (the root tsconfig has no DOM types, hence the loose global).
    ({ command, input }) => (globalThis as any).gatehouse.commands[command](input),
    { command, input: input as unknown },
  ) as Promise<CommandOutput<C>>;
}

async function show(page: Page, view: string): Promise<void> {
  await page.evaluate((v) => ((globalThis as any).location.hash = `#/${v}`), view);
}

test.describe('Electron shell', () => {
  test.skip(!probe.binary, probe.reason ?? '');
  test.describe.configure({ mode: 'serial' });

  let app: ElectronApplication;
  let page: Page;
  let tmp: string;
  let dataDir: string;
  let launch: Launch;
  const stderr: string[] = [];

  test.beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-electron-e2e-'));
    dataDir = path.join(tmp, 'data');
    app = await _electron.launch({
      executablePath: probe.binary!,
      // Chromium refuses to run as root without --no-sandbox (containers, CI); the renderer's
      // own `sandbox: true` restrictions (no Node, no require) still apply.
      args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), MAIN],
      cwd: tmp,
      env: {
        ...process.env,
        GATEHOUSE_DATA_DIR: dataDir,
        GATEHOUSE_PROFILES_DIR: path.join(tmp, 'profiles'),
        XDG_STATE_HOME: path.join(tmp, 'state'),
        GATEHOUSE_TOKEN: '',
      } as Record<string, string>,
      timeout: 60_000,
    });
    app.process().stderr?.on('data', (c: Buffer) => stderr.push(c.toString('utf8')));
    page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
  });

  test.afterAll(async () => {
    if (app) {
      const pids = launch ? (await bridgeCall(page, 'launches:list', {}).catch(() => [] as Launch[])).flatMap((l) => l.servers.map((s) => s.pid ?? 0)).filter((p) => p > 0) : [];
      await app.close();
      // Quitting stops the host: no server process outlives the app.
      for (const pid of pids) expect(() => process.kill(pid, 0), `server pid ${pid} still alive after quit`).toThrow();
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test('the window is locked down: app://gatehouse/, sandboxed, isolated, strict CSP, no navigation', async () => {
    await expect(page).toHaveTitle(/Gatehouse/);
    expect(page.url()).toMatch(/^app:\/\/gatehouse\//);
    // webPreferences are not readable back in Electron 45; their effects are checked from the
    // page below (no require/process, only the bridge), the values in main/electron/main.ts.
    const { bounds, area } = await app.evaluate(({ BrowserWindow, screen }) => ({
      bounds: BrowserWindow.getAllWindows().map((w) => w.getBounds()),
      area: screen.getPrimaryDisplay().workArea,
    }));
    expect(bounds).toHaveLength(1);
    // 1400x900 by default, shrunk (not below 900x600) to fit a smaller display such as xvfb's.
    expect([bounds[0]!.width, bounds[0]!.height]).toEqual([Math.min(1400, Math.max(900, area.width)), Math.min(900, Math.max(600, area.height))]);

    const inPage = await page.evaluate(async () => {
      const g = globalThis as any;
      const res = await g.fetch('app://gatehouse/index.html');
      const escape = await g.fetch('app://gatehouse/..%2fpackage.json');
      const opened = g.open('https://example.com/');
      return {
        require: typeof g.require,
        process: typeof g.process,
        bridgeKeys: Object.keys(g.gatehouse).sort(),
        ipcRenderer: typeof g.gatehouse.ipcRenderer,
        csp: res.headers.get('content-security-policy'),
        nosniff: res.headers.get('x-content-type-options'),
        escapeStatus: escape.status,
        opened: opened === null,
      };
    });
    expect(inPage).toMatchObject({ require: 'undefined', process: 'undefined', bridgeKeys: ['commands', 'events', 'version'], ipcRenderer: 'undefined', nosniff: 'nosniff', opened: true });
    expect(inPage.csp).toContain("script-src 'self'");
    expect(inPage.csp).toContain("frame-ancestors 'none'");
    expect(inPage.escapeStatus).toBeGreaterThanOrEqual(400);

    // Navigation away is refused: the page stays on app://gatehouse/.
    await page.evaluate(() => ((globalThis as any).location.href = 'https://example.com/'));
    await page.waitForTimeout(500);
    expect(page.url()).toMatch(/^app:\/\/gatehouse\//);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    await page.reload();
    await expect(page.locator('#root > *').first()).toBeVisible();
    expect(problems).toEqual([]);
    await page.screenshot({ path: test.info().outputPath('electron-app.png') });
  });

  test('host:info says electron, with the data dir from GATEHOUSE_DATA_DIR', async () => {
    expect(await bridgeCall(page, 'host:info', {})).toMatchObject({ shell: 'electron', dataDir });
  });

  test('the demo is listed and launches with every server ready', async () => {
    const profiles = await bridgeCall(page, 'profiles:list', {});
    expect(profiles.find((p) => p.name === 'demo')).toMatchObject({ servers: ['workspace', 'files', 'memory'] });
    await show(page, 'profiles');
    await expect(page.getByRole('list', { name: 'Profiles' })).toContainText('demo');
    launch = await bridgeCall(page, 'profiles:launch', { ref: 'demo' });
    expect(launch.servers.map((s) => [s.id, s.state])).toEqual([
      ['workspace', 'ready'],
      ['files', 'ready'],
      ['memory', 'ready'],
    ]);
    await show(page, 'servers');
    await expect(page.getByText('ready').first()).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('electron-servers.png') });
  });

  test('a tool-console call shows its request and response in Traffic', async () => {
    const r = await bridgeCall(page, 'tools:call', { launchId: launch.id, name: 'fs.read', arguments: { path: 'notes.txt' } });
    expect(r.error).toBeUndefined();
    expect(r.result?.isError).not.toBe(true);
    await show(page, 'traffic');
    const traffic = page.getByRole('region', { name: 'Traffic view' });
    await expect(traffic).toContainText('tools/call');
    await expect(traffic).toContainText(/fs\.read|read_file/);
    await page.screenshot({ path: test.info().outputPath('electron-traffic.png') });
  });

  test('an approval is answered from the window: allow runs the call, deny refuses it', async () => {
    const ask = (text: string) =>
      bridgeCall(page, 'tools:call', { launchId: launch.id, name: 'process.exec', arguments: { argv: ['node', '-e', `console.log(${JSON.stringify(text)})`] } });

    const allowed = ask('allowed from electron');
    const dialog = page.getByRole('dialog').filter({ hasText: /run_command|process\.exec/ }).first();
    await expect(dialog).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('electron-approval.png') });
    await dialog.getByRole('button', { name: /Allow once/ }).click();
    const ok = await allowed;
    expect(ok.result?.isError).not.toBe(true);
    expect(JSON.stringify(ok.result)).toContain('allowed from electron');

    const denied = ask('denied from electron');
    const second = page.getByRole('dialog').filter({ hasText: /run_command|process\.exec/ }).first();
    await expect(second).toBeVisible();
    await second.getByRole('button', { name: /^Deny/ }).click();
    const no = await denied;
    expect(no.result?.isError).toBe(true);
    expect(JSON.stringify(no.result)).not.toContain('denied from electron\\n');
  });

  test('a server’s stderr shows in Logs', async () => {
    const tail = await bridgeCall(page, 'logs:tail', { launchId: launch.id, serverId: 'memory' });
    expect(tail.map((l) => l.line).join('\n')).toMatch(/running on stdio/i);
    await show(page, 'logs');
    await expect(page.getByRole('region', { name: 'Logs view' })).toContainText(/running on stdio/i);
    await page.screenshot({ path: test.info().outputPath('electron-logs.png') });
  });
});
