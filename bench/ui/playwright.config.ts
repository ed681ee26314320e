// `npm run bench:ui` (not part of npm test): the Traffic view under load in a real Chromium
// against the real host, measured against the Profiles view in the same run. See bench/ui/traffic.bench.ts.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: /\.bench\.ts$/,
  outputDir: '../../test-results/bench-ui',
  workers: 1,
  timeout: 30 * 60_000,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: process.env.GATEHOUSE_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        // Exact heap numbers and a GC we can ask for, so heap per message is measured, not sampled noise.
        '--enable-precise-memory-info',
        '--js-flags=--expose-gc',
        '--disable-renderer-backgrounding',
        '--disable-background-timer-throttling',
      ],
    },
  },
});
