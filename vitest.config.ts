import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'common/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'tests/integration/**/*.test.ts', 'tests/faults/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real processes and servers: the machine has 2 cores, keep parallelism modest.
    maxWorkers: 2,
    pool: 'forks',
    // The gateway's first tools/list waits only 1 s for a second server once one is ready
    // (main/gateway/gateway.ts firstStarts); on this loaded machine the reference servers can
    // start seconds apart, and tests that list once expect them all. The straggler test sets 1000.
    env: { GATEHOUSE_START_STRAGGLER_MS: '5000' },
    // Pre-approves never-seen servers in-process, through the real trust store (docs/trust.md).
    setupFiles: ['tests/support/trust-setup.ts'],
  },
});
