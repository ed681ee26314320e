// One fault scenario: the bad server misbehaves while the agent keeps calling the good one.
// Checks what docs/gateway.md "Limits under faults and load" promises under every fault: the other server keeps answering, the gateway's RSS
// stays under its ceiling, the faulty server ends in an honest state with its reason, and every
// request the agent sent gets exactly one answer. Prints the figures.
import { expect } from 'vitest';
import { waitFor } from '../support/gateway';
import { FaultRig, profileYaml, RSS_CEILING_MB, type BadServer } from './harness';
import type { RawFrame } from '../support/raw-stdio';

export interface Scenario {
  name: string;
  bad: BadServer;
  /** Call bad_trigger and check its answer's text. */
  trigger?: RegExp;
  /** A status line of `bad` the gateway must log (its honest state and reason). */
  badState?: RegExp;
  /** Good calls made while the fault runs. */
  goodCalls?: number;
  /** Extra checks with the rig still open. */
  more?: (rig: FaultRig) => Promise<void>;
  env?: NodeJS.ProcessEnv;
}

export interface ScenarioResult {
  peakRssMb: number;
  p50: number;
  p99: number;
  triggerAnswer?: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function runScenario(cli: string, s: Scenario): Promise<ScenarioResult> {
  const rig = new FaultRig(cli, profileYaml(s.bad), s.env);
  try {
    await rig.initialize();
    await rig.request('tools/list');
    let trigger: Promise<RawFrame> | undefined;
    if (s.trigger) trigger = rig.call('bad_trigger', {}, 90_000);
    const latencies: number[] = [];
    for (let i = 0; i < (s.goodCalls ?? 40); i++) {
      const t0 = performance.now();
      const answer = await rig.call('good_echo', { text: `call ${i}` });
      latencies.push(performance.now() - t0);
      expect(FaultRig.text(answer)).toBe(`echo: call ${i}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    let triggerAnswer: string | undefined;
    if (trigger && s.trigger) {
      triggerAnswer = FaultRig.text(await trigger);
      expect(triggerAnswer).toMatch(s.trigger);
    }
    if (s.badState) await waitFor(() => rig.badStates().some((l) => s.badState!.test(l)), `bad to log a state matching ${s.badState}: ${rig.badStates().join(' | ')}`, 60_000);
    await s.more?.(rig);
    // The good server still answers once the fault is over.
    expect(FaultRig.text(await rig.call('good_echo', { text: 'after' }))).toBe('echo: after');
    rig.sampleRss();
    const sorted = [...latencies].sort((a, b) => a - b);
    const result = { peakRssMb: rig.peakRssMb, p50: percentile(sorted, 50), p99: percentile(sorted, 99), triggerAnswer };
    const badState = rig.badStates().at(-1)?.replace(/^\[[^\]]*\]\s+/, '') ?? '(no state line)';
    await rig.close();
    // Late duplicates would have arrived by now: the gateway has exited.
    const counts = rig.answerCounts();
    process.stderr.write(
      `[faults] ${s.name}: gateway peak RSS ${result.peakRssMb.toFixed(0)} MB (ceiling ${RSS_CEILING_MB}); ` +
        `good server p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms over ${latencies.length} calls; ` +
        `${rig.sent.length} requests, ${counts.missing.length} unanswered, ${counts.duplicated.length} answered twice; ` +
        `bad before shutdown: ${badState.replace(/\s+/g, ' ')}\n`,
    );
    expect(counts).toEqual({ missing: [], duplicated: [] });
    expect(result.peakRssMb).toBeLessThan(RSS_CEILING_MB);
    return result;
  } finally {
    rig.cleanup();
  }
}
