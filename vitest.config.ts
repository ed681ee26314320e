import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'common/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'tests/integration/**/*.test.ts', 'tests/faults/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real processes and servers: the machine has 2 cores, keep parallelism modest.
    maxWorkers: 2,
    pool: 'forks',
    // Pre-approves never-seen servers in-process, through the real trust store (docs/trust.md).
    setupFiles: ['tests/support/trust-setup.ts'],
  },
});
