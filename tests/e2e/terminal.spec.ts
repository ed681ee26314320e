// Terminals, in the browser: open a terminal (the shell preset) for the demo launch, type a
// command, see its output; reload the page and see the scrollback replayed from the host; the
// process's end stays readable. Output is read from xterm's rendered rows in the DOM.
import type { Locator, Page } from '@playwright/test';
import { expect, gotoView, launchFromProfiles, openApp, serveForFile, shot } from './support/app';

const { test, serve } = serveForFile();

/** The text xterm shows (its DOM renderer's rows), one line per row. */
function screenText(region: Locator): Promise<string> {
  return region.locator('.xterm-rows').evaluate((rows) => [...rows.children].map((r) => r.textContent ?? '').join('\n'));
}

async function expectOnScreen(region: Locator, text: string | RegExp): Promise<void> {
  await expect.poll(() => screenText(region), { timeout: 20_000 }).toMatch(typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text);
}

async function typeInto(page: Page, region: Locator, text: string): Promise<void> {
  await region.locator('.xterm').click();
  await page.keyboard.type(text);
}

test('a shell in the Terminal view: type a command, see its output, reload, see it replayed', async ({ page }, testInfo) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  await openApp(page, serve());
  await launchFromProfiles(page, 'demo', 3);
  await gotoView(page, 'Terminal');

  await page.getByRole('button', { name: 'New terminal' }).click();
  const menu = page.getByRole('menu', { name: 'New terminal' });
  // Agents that are not installed are listed, disabled, with how to install them.
  const claude = menu.getByRole('menuitem', { name: /Claude Code/ });
  await expect(claude).toBeVisible();
  if ((await claude.getAttribute('aria-disabled')) === 'true') await expect(claude).toContainText('npm install -g @anthropic-ai/claude-code');
  await shot(page, testInfo, 'terminal-new-menu');
  await menu.getByRole('menuitem', { name: /^Shell/ }).click();

  const region = page.getByRole('region', { name: 'Terminal Shell', exact: true });
  await expect(region).toBeVisible();
  await expect(page.getByRole('tab', { name: /Shell/ })).toHaveAttribute('aria-selected', 'true');
  // Type once the shell has printed its prompt (typed-ahead text would echo before it).
  await expect.poll(async () => (await screenText(region)).trim().length, { timeout: 20_000 }).toBeGreaterThan(0);
  await typeInto(page, region, 'echo gatehouse-$((6*7))\n');
  await expectOnScreen(region, 'gatehouse-42');
  // The shell got the launch's gateway in its environment.
  await typeInto(page, region, 'echo "url=$GATEHOUSE_MCP_URL"\n');
  await expectOnScreen(region, /url=http:\/\/127\.0\.0\.1:\d+\/mcp/);
  await shot(page, testInfo, 'terminal');
  // Colours follow the app's theme.
  await page.getByRole('radio', { name: 'Dark theme' }).click();
  await shot(page, testInfo, 'terminal-dark');
  await page.getByRole('radio', { name: 'Light theme' }).click();

  // The host keeps the terminal: after a reload the scrollback comes back, and the shell still runs.
  await page.reload();
  await expect(page.getByRole('main', { name: 'Terminal' })).toBeVisible();
  const again = page.getByRole('region', { name: 'Terminal Shell', exact: true });
  await expectOnScreen(again, 'gatehouse-42');
  await typeInto(page, again, 'echo still-$((40+2))\n');
  await expectOnScreen(again, 'still-42');

  // The process's end is shown, and the output stays readable.
  await typeInto(page, again, 'exit 3\n');
  await expectOnScreen(again, '[process exited with code 3]');
  await expectOnScreen(again, 'gatehouse-42');
  await expect(page.getByRole('tab', { name: /Shell/ })).toContainText('exited 3');
  await shot(page, testInfo, 'terminal-exited');

  await page.getByRole('button', { name: 'Close terminal' }).click();
  await expect(page.getByRole('tab')).toHaveCount(0);
  await expect(page.getByText('No terminal yet')).toBeVisible();
  expect(problems).toEqual([]);
});
