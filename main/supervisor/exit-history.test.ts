import { describe, expect, it } from 'vitest';
import { ExitHistory, exitLogLine, formatUptime } from './exit-history';

describe('exit history', () => {
  it('keeps every exit with its stderr tail, oldest first, bounded', () => {
    const h = new ExitHistory();
    for (let run = 1; run <= 60; run++) h.record(run, { code: null, signal: 'SIGKILL', at: run, uptimeMs: 1000, reason: 'crashed' }, Array.from({ length: 30 }, (_, i) => `line ${i}`));
    const list = h.list();
    expect(list.length).toBe(50);
    expect(list[0]!.run).toBe(11);
    expect(list.at(-1)).toMatchObject({ run: 60, signal: 'SIGKILL', stderrTail: expect.arrayContaining(['line 29']) });
    expect(list.at(-1)!.stderrTail.length).toBe(20);
    // list() hands out copies: a caller cannot rewrite the history.
    list[0]!.stderrTail.push('x');
    expect(h.list()[0]!.stderrTail.length).toBe(20);
  });

  it('describes an exit as a log line', () => {
    expect(exitLogLine({ code: null, signal: 'SIGKILL', uptimeMs: 12_345, reason: 'crashed', run: 1 })).toBe('gatehouse: exited by SIGKILL after 12 s (run 1, crashed)');
    expect(exitLogLine({ code: 1, signal: null, uptimeMs: 49, reason: 'exited with code 1', run: 2 })).toBe('gatehouse: exited with code 1 after 49 ms (run 2, exited with code 1)');
    expect(formatUptime(2600)).toBe('2.6 s');
    expect(formatUptime(125_000)).toBe('2 min 5 s');
    expect(formatUptime(3_900_000)).toBe('1 h 5 min');
  });
});
