// Fault injection, process side (docs/gateway.md "Limits under faults and load"): a server that never initializes, hangs, leaves a
// grandchild in its own session, ignores EOF and SIGTERM, or crashes in a loop. Real gateway
// process, real server processes; figures printed per scenario.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidAlive } from '../support/raw-stdio';
import { waitFor } from '../support/gateway';
import { FaultRig, profileYaml, useCliBundle } from './harness';
import { runScenario } from './scenario';

const cli = useCliBundle();

const pidsIn = (file: string): number[] => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

describe('fault injection: how a server process behaves', { timeout: 180_000 }, () => {
  // The gateway answers initialize at once with what is ready (docs/gateway.md "Servers that are slow to start"): a
  // server that never answers initialize delays nobody.
  it('no-initialize: the gateway answers initialize before the silent server settles', async () => {
    const rig = new FaultRig(cli(), profileYaml({ args: ['--mode', 'no-initialize'] }));
    try {
      await rig.initialize();
      // Answered while bad is still trying: its final state line comes after the answer.
      expect(rig.badStates().some((l) => /\bfailed\b/.test(l))).toBe(false);
      expect(FaultRig.text(await rig.call('good_echo', { text: 'now' }))).toBe('echo: now');
    } finally {
      rig.cleanup();
    }
  });

  it('no-initialize: the silent server ends failed with its reason; the other server answers; every request answered', async () => {
    await runScenario(cli(), {
      name: 'no-initialize',
      bad: { args: ['--mode', 'no-initialize'] },
      badState: /failed .*initialize did not answer within 3s/,
      goodCalls: 20,
    });
  });

  it('hang: a call that never comes back is answered at its timeout; the other server is not delayed', async () => {
    await runScenario(cli(), {
      name: 'hang',
      bad: { args: ['--mode', 'hang'], requestTimeoutS: 5 },
      trigger: /did not answer within 5s/,
      goodCalls: 40,
    });
  });

  it('setsid grandchild holding stdout: the exit is seen, the run ends and restarts with its reason', async () => {
    const pidFile = path.join(process.env.TMPDIR ?? '/tmp', `faults-setsid-${process.pid}-${Date.now()}.pids`);
    try {
      await runScenario(cli(), {
        name: 'setsid grandchild',
        bad: { args: ['--mode', 'setsid', '--pid-file', pidFile] },
        trigger: /exiting|went away/,
        badState: /restarting .*exited with code 2/,
      });
    } finally {
      for (const pid of pidsIn(pidFile)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }
  });

  it('ignore-eof: at shutdown the server is SIGKILLed after its grace; no process of it is left', async () => {
    const pidFile = path.join(process.env.TMPDIR ?? '/tmp', `faults-ignore-eof-${process.pid}-${Date.now()}.pids`);
    // Unsandboxed, so its pid file (outside any grant) holds host pids to check; the sandboxed
    // version of this fault is tests/integration/sandbox-orphans.test.ts.
    await runScenario(cli(), { name: 'ignore EOF and SIGTERM', bad: { args: ['--mode', 'ignore-eof', '--pid-file', pidFile], extra: '    sandbox: off' }, goodCalls: 10 });
    const pids = pidsIn(pidFile);
    expect(pids.length).toBeGreaterThan(0);
    await waitFor(() => pids.every((p) => !pidAlive(p)), 'the ignore-eof server to be gone after the gateway exited', 20_000);
  });

  it('crash loop: the server ends failed after its restarts, with its stderr as the reason', async () => {
    await runScenario(cli(), {
      name: 'crash loop',
      bad: { args: ['--mode', 'crash-loop'] },
      badState: /failed .*gave up after 2 restarts.*crash-loop mode/,
      goodCalls: 20,
    });
  });
});
