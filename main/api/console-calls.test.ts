import { describe, expect, it } from 'vitest';
import { ConsoleCalls } from './console-calls';

describe('ConsoleCalls', () => {
  it('keeps each call from start to answer, oldest first, and tells listeners of both', () => {
    const calls = new ConsoleCalls();
    const seen: string[] = [];
    calls.onChange((c) => seen.push(`${c.exchange}:${c.output ? 'done' : 'pending'}`));
    calls.start('ui#console-1', 'L', 'write_file', { file_path: 'a' });
    calls.start('ui#console-2', 'L', 'read_file', { file_path: 'b' });
    expect(calls.list().map((c) => [c.exchange, c.output])).toEqual([
      ['ui#console-1', undefined],
      ['ui#console-2', undefined],
    ]);
    calls.finish('ui#console-1', { error: 'denied', exchange: 'ui#console-1' });
    // An answer for a call it never started (or has let go of) is ignored, not invented.
    calls.finish('ui#console-9', { error: 'x' });
    const first = calls.list()[0]!;
    expect(first.output).toEqual({ error: 'denied', exchange: 'ui#console-1' });
    expect(first.ms).toBeGreaterThanOrEqual(0);
    expect(first.args).toEqual({ file_path: 'a' });
    expect(seen).toEqual(['ui#console-1:pending', 'ui#console-2:pending', 'ui#console-1:done']);
  });

  it('is bounded: the oldest calls go first', () => {
    const calls = new ConsoleCalls();
    for (let i = 0; i < 250; i++) calls.start(`ui#${i}`, 'L', 't', {});
    const list = calls.list();
    expect(list.length).toBe(200);
    expect(list[0]!.exchange).toBe('ui#50');
  });
});
