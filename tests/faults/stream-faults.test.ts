// Fault injection, stdout side (docs/gateway.md "Limits under faults and load"): floods, lying Content-Length, unsolicited responses,
// deep nesting. Real gateway process, real server processes; figures printed per scenario.
import { describe, it } from 'vitest';
import { useCliBundle } from './harness';
import { runScenario } from './scenario';

const cli = useCliBundle();

describe('fault injection: what a server writes on stdout', { timeout: 180_000 }, () => {
  it('flood of 200-byte garbage lines: counted faults, the server stays ready', async () => {
    await runScenario(cli(), { name: 'flood 200 B lines', bad: { args: ['--mode', 'flood-lines', '--size', '200'] }, trigger: /flooding lines/ });
  });

  it('flood of 1 MB notifications: memory bounded, the other server answers', async () => {
    await runScenario(cli(), { name: 'flood 1 MB notifications', bad: { args: ['--mode', 'flood-notes', '--size', String(1024 * 1024)] }, trigger: /flooding notifications/ });
  });

  it('flood of 3 MB notifications: memory bounded, the other server answers', async () => {
    await runScenario(cli(), { name: 'flood 3 MB notifications', bad: { args: ['--mode', 'flood-notes', '--size', String(3 * 1024 * 1024)] }, trigger: /flooding notifications/ });
  });

  it('Content-Length: 999999999999999 — the run ends with the reason shown, its call fails at once, the server restarts', async () => {
    await runScenario(cli(), {
      name: 'lying Content-Length (huge)',
      bad: { args: ['--mode', 'lying-cl', '--lie', 'huge'] },
      trigger: /went away .*out of sync: Content-Length 999999999999999 exceeds the message limit/,
      badState: /restarting .*out of sync/,
    });
  });

  it('Content-Length 50 KB too long — the frame misses its deadline, the run ends and restarts', async () => {
    await runScenario(cli(), {
      name: 'lying Content-Length (+50 KB)',
      bad: { args: ['--mode', 'lying-cl', '--lie', 'plus'] },
      trigger: /went away .*out of sync: frame not completed within/,
      badState: /restarting .*out of sync/,
    });
  });

  it('Content-Length with a missing body — not silent: the frame misses its deadline and the run restarts', async () => {
    await runScenario(cli(), {
      name: 'lying Content-Length (missing body)',
      bad: { args: ['--mode', 'lying-cl', '--lie', 'missing'] },
      trigger: /went away .*out of sync/,
      badState: /restarting .*out of sync/,
    });
  });

  it('unsolicited and duplicated responses: every call answered exactly once', async () => {
    await runScenario(cli(), {
      name: 'unsolicited responses',
      bad: { args: ['--mode', 'unsolicited'] },
      more: async (rig) => {
        for (let i = 0; i < 10; i++) {
          const { FaultRig } = await import('./harness');
          const text = FaultRig.text(await rig.call('bad_echo', { text: `u${i}` }));
          if (text !== `echo: u${i}`) throw new Error(`bad_echo answered ${text}`);
        }
      },
    });
  });

  it('a result nested 10,000 deep: refused with a clear error at once, no stack overflow, the server stays up', async () => {
    await runScenario(cli(), {
      name: 'deep nesting (server result)',
      bad: { args: ['--mode', 'deep', '--depth', '10000'] },
      trigger: /refused by the gateway: JSON nested deeper than 128 levels/,
    });
  });

  it('an upstream JSON-RPC error passes through with its code and message', async () => {
    await runScenario(cli(), {
      name: 'upstream -32000 error',
      bad: { args: ['--mode', 'ok'] },
      more: async (rig) => {
        const answer = await rig.call('bad_fail');
        const error = (answer.message as { error?: { code: number; message: string } }).error;
        if (error?.code !== -32000 || !/the upstream says no/.test(error.message)) {
          throw new Error(`expected the server's -32000 error, got ${answer.text}`);
        }
      },
      goodCalls: 5,
    });
  });
});
