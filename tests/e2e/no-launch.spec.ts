// The views that work on the active launch, before anything is launched (docs/ui-layout.md
// "Resources and Prompts"): each says no launch runs, what it would show, and takes a person to
// Profiles; none of them shows a list or a form with nothing behind it.
import type { Page } from '@playwright/test';
import { expect, openApp, serveForFile } from './support/app';

const { test, serve } = serveForFile();

const VIEWS: Array<[label: string, says: string]> = [
  ['Servers', 'Launch a profile to see its servers here.'],
  ['Terminal', 'Launch a profile to run an agent or a shell wired to its gateway.'],
  ['Tool console', 'Launch a profile to call its tools from here, without an agent.'],
  ['Connect an agent', 'Launch a profile: its gateway is what an agent connects to.'],
  ['Resources', "Launch a profile to list and read its servers' resources from here."],
  ['Prompts', "Launch a profile to list and try its servers' prompts from here."],
];

async function gotoNav(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: label, exact: true }).click();
  await expect(page.getByRole('main', { name: label })).toBeVisible();
}

test('with no launch, each launch view says so and leads to Profiles', async ({ page }) => {
  await openApp(page, serve());
  for (const [label, says] of VIEWS) {
    await gotoNav(page, label);
    const main = page.getByRole('main', { name: label });
    await expect(main.getByRole('heading', { name: label, exact: true })).toBeVisible();
    await expect(main).toContainText('No running launch');
    await expect(main).toContainText(says);
    await expect(main.getByRole('searchbox')).toHaveCount(0);
    await main.getByRole('button', { name: 'Go to Profiles' }).click();
    await expect(page.getByRole('main', { name: 'Profiles' })).toBeVisible();
  }
});
