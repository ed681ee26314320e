import { describe, expect, it } from 'vitest';
import { formatBytes, formatCountdown, formatDuration, formatFullDate, formatTime } from './format-time';

// Local time on purpose: build the instant from local fields so the test holds in any zone.
const at = (h: number, m: number, s: number, ms: number): number => new Date(2025, 2, 14, h, m, s, ms).getTime();

describe('formatTime', () => {
  it('prints HH:MM:SS.mmm in local time, zero-padded', () => {
    expect(formatTime(at(14, 3, 7, 42))).toBe('14:03:07.042');
    expect(formatTime(at(0, 0, 0, 0))).toBe('00:00:00.000');
    expect(formatTime(at(23, 59, 59, 999))).toBe('23:59:59.999');
  });
  it('never throws on a bad value', () => {
    expect(formatTime(Number.NaN)).toBe('--:--:--.---');
  });
});

describe('formatFullDate', () => {
  it('adds the date and the zone offset to the same time', () => {
    const text = formatFullDate(at(9, 5, 1, 7));
    expect(text).toMatch(/^2025-03-14 09:05:01\.007 \(UTC[+-]\d\d:\d\d\)$/);
  });
});

describe('formatDuration', () => {
  it('picks a unit that stays short', () => {
    expect(formatDuration(840)).toBe('840 ms');
    expect(formatDuration(1_234)).toBe('1.2 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(245_000)).toBe('4m 05s');
    expect(formatDuration(3 * 3_600_000 + 2 * 60_000)).toBe('3h 02m');
    expect(formatDuration(2 * 86_400_000 + 4 * 3_600_000)).toBe('2d 04h');
    expect(formatDuration(-1)).toBe('—');
  });
});

describe('formatCountdown', () => {
  it('rounds up to whole seconds and never goes negative', () => {
    expect(formatCountdown(41_001)).toBe('0:42');
    expect(formatCountdown(725_000)).toBe('12:05');
    expect(formatCountdown(3_600_000)).toBe('1:00:00');
    expect(formatCountdown(-5_000)).toBe('0:00');
  });
});

describe('formatBytes', () => {
  it('scales', () => {
    expect(formatBytes(812)).toBe('812 B');
    expect(formatBytes(4300)).toBe('4.2 KB');
    expect(formatBytes(1.3 * 1024 * 1024)).toBe('1.3 MB');
  });
});
