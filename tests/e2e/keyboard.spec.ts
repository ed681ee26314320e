// Keyboard only, no mouse: launch a profile from the command palette, write a file from the Tool
// console, open a shell in the Terminal, answer the approval from inside the Terminal with Alt+A
// then A, see the next card take the focus, open its exchange in Traffic with E, and leave a
// last answer that puts focus back where it was (never on <body>). F6 leaves the Terminal too.
import type { Locator, Page } from '@playwright/test';
import { callFromPage } from './support/page-api';
import { expect, openApp, serveForFile, shot } from './support/app';
import { keysProfile } from './support/keys-profile';

const { test, serve } = serveForFile({ profiles: { 'e2e-keys.yaml': keysProfile('e2e-keys') } });

/** Presses Tab (or Shift+Tab) until `target` has the focus, as a person would; fails after `max`. */
async function tabTo(page: Page, target: Locator, max = 60, back = false): Promise<void> {
  for (let i = 0; i < max; i++) {
    // Runs in the page (the root tsconfig has no DOM types, hence the loose global).
    if (await target.evaluate((el) => el === (globalThis as any).document.activeElement)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  await expect(target).toBeFocused();
}

const focusedTag = (page: Page) =>
  page.evaluate(() => {
    const doc = (globalThis as any).document;
    return !doc.activeElement || doc.activeElement === doc.body ? 'BODY' : String(doc.activeElement.tagName);
  });

test('launch → Tool console write → approval answered from inside the Terminal with Alt+A → next card focused → Traffic row opened, no mouse', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openApp(page, serve());
  await expect(page).toHaveTitle('Gatehouse');

  // Launch from the command palette.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox', { name: 'Command' })).toBeFocused();
  await page.keyboard.type('launch e2e');
  await expect(palette.getByRole('option', { selected: true })).toHaveText(/Launch e2e-keys/);
  await shot(page, testInfo, 'keys-palette');
  await page.keyboard.press('Enter');
  await expect(palette).toHaveCount(0);
  await expect(page.getByRole('banner', { name: 'Top bar' }).getByRole('button', { name: '1/1 ready' })).toBeVisible({ timeout: 60_000 });

  // The Tool console (Alt+7): write_file, arguments as JSON, Ctrl+Enter calls.
  await page.keyboard.press('Alt+7');
  await expect(page.getByRole('main', { name: 'Tool console' })).toBeFocused();
  await tabTo(page, page.getByRole('navigation', { name: 'Tools' }).getByRole('button', { name: /^write_file/ }));
  await page.keyboard.press('Enter');
  const panel = page.getByRole('region', { name: 'Call write_file' });
  await tabTo(page, panel.getByRole('button', { name: 'Edit as JSON' }));
  await page.keyboard.press('Enter');
  const json = panel.getByRole('textbox', { name: 'Arguments as JSON' });
  await tabTo(page, json, 10);
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(JSON.stringify({ file_path: 'first.txt', content: 'one\n' }));
  await page.keyboard.press('Control+Enter');
  const tray = page.getByRole('complementary', { name: 'Approvals tray' });
  const cards = tray.getByRole('dialog', { name: /Approval request: write_file/ });
  await expect(cards).toHaveCount(1);
  await expect(page).toHaveTitle('(1) Gatehouse');
  // A second write, from the host API (the console runs one call per tool at a time).
  const [launch] = await callFromPage(page, 'launches:list', {});
  const second = callFromPage(page, 'tools:call', { launchId: launch!.id, name: 'write_file', arguments: { file_path: 'second.txt', content: 'two\n' } });
  await expect(cards).toHaveCount(2);
  await expect(page).toHaveTitle('(2) Gatehouse');
  // The favicon carries the count: a PNG drawn on a canvas instead of the SVG mark.
  await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', /^data:image\/png;base64,/);

  // The Terminal (Alt+5): New terminal → Shell (listed first: it is available), typed into.
  await page.keyboard.press('Alt+5');
  await tabTo(page, page.getByRole('button', { name: 'New terminal' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menu', { name: 'New terminal' }).getByRole('menuitem').first()).toHaveText(/^Shell/);
  await expect(page.getByRole('menuitem', { name: /^Shell/ })).toBeFocused();
  await page.keyboard.press('Enter');
  const region = page.getByRole('region', { name: 'Terminal Shell', exact: true });
  const xtermInput = region.locator('textarea.xterm-helper-textarea');
  await expect(xtermInput).toBeFocused();
  const screen = () => region.locator('.xterm-rows').evaluate((rows) => [...rows.children].map((r) => r.textContent ?? '').join('\n'));
  await expect.poll(async () => (await screen()).trim().length, { timeout: 20_000 }).toBeGreaterThan(0);
  await page.keyboard.type('echo typed-$((20+22))\n');
  await expect.poll(screen, { timeout: 20_000 }).toMatch(/typed-42/);

  // Esc stays in the shell (editors need it); F6 leaves it for the next region.
  await page.keyboard.press('Escape');
  await expect(xtermInput).toBeFocused();
  await page.keyboard.press('F6');
  await expect(xtermInput).not.toBeFocused();
  expect(await focusedTag(page)).not.toBe('BODY');
  await xtermInput.focus();

  // From inside the Terminal: Alt+A reaches the tray, A answers the oldest, the next card takes the focus.
  await page.keyboard.press('Alt+a');
  await expect(cards.first()).toBeFocused();
  await expect(cards.first()).toContainText('first.txt');
  await shot(page, testInfo, 'keys-tray-focused');
  await expect(cards.first()).not.toHaveAttribute('data-allow-locked', 'true');
  await page.keyboard.press('a');
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toContainText('second.txt');
  await expect(cards.first()).toBeFocused();
  await expect(page).toHaveTitle('(1) Gatehouse');
  // Nothing of Alt+A reached the shell: what it shows is what was typed.
  expect((await screen()).includes('typed-42')).toBe(true);

  // E opens the card's exchange in Traffic: its row selected, its details open.
  await page.keyboard.press('e');
  await expect(page.getByRole('main', { name: 'Traffic' })).toBeVisible();
  const grid = page.getByRole('grid', { name: 'Traffic' });
  await expect(grid.getByRole('row', { selected: true })).toContainText('tools/call');
  await expect(page.getByRole('region', { name: /^Details of tools\/call/ })).toBeVisible();
  await shot(page, testInfo, 'keys-traffic-row');

  // The last answer: back into the tray, D denies, and focus returns to where it was (Traffic), not <body>.
  await page.keyboard.press('Alt+3');
  await expect(page.getByRole('main', { name: 'Traffic' })).toBeFocused();
  await page.keyboard.press('Alt+a');
  await expect(cards.first()).toBeFocused();
  await page.keyboard.press('d');
  await expect(cards).toHaveCount(0);
  await expect(page.getByRole('main', { name: 'Traffic' })).toBeFocused();
  await expect(page).toHaveTitle('Gatehouse');
  await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', './icon.svg');
  const denied = await second;
  expect(JSON.stringify(denied)).toMatch(/DENY/);

  // A Traffic row opens from the keyboard too: ↓ selects, Enter opens.
  await tabTo(page, grid);
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('region', { name: /^Details of / })).toBeVisible();
  expect(errors).toEqual([]);
});
