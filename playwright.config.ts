// End-to-end tests: a real Chromium (Debian's `chromium`, see DEVELOPERS.md) against the real
// headless shell (`gatehouse serve`) and the real host. Each spec file starts its own
// `gatehouse serve` on a port the OS picks, with its own temp data dir (tests/e2e/support/serve.ts).
// Screenshots land in test-results/ (look at them).
import { defineConfig } from '@playwright/test';
// The same lookup `npm test`'s preflight checks (scripts/preflight.mjs), so what it found is what runs.
import { chromiumPath } from './scripts/preflight.mjs';

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results',
  // Real servers and a real browser on a 2-core machine: one worker keeps runs predictable.
  workers: 1,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    browserName: 'chromium',
    viewport: { width: 1400, height: 900 },
    screenshot: 'on',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.GATEHOUSE_CHROMIUM ?? chromiumPath() ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    },
  },
});
