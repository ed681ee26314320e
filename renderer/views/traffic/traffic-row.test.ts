import { describe, expect, it } from 'vitest';
import { shownSummary, SUMMARY_SHOWN } from './traffic-row';

describe('shownSummary', () => {
  it('lays out at most SUMMARY_SHOWN characters of a long summary, marked as cut', () => {
    const long = 'x'.repeat(240);
    const shown = shownSummary(long, '');
    expect(shown).toBe(`${'x'.repeat(SUMMARY_SHOWN)}…`);
    expect(shownSummary('read_file /tmp/a.txt', '')).toBe('read_file /tmp/a.txt');
    expect(shownSummary('y'.repeat(SUMMARY_SHOWN), '')).toBe('y'.repeat(SUMMARY_SHOWN));
  });

  it('keeps the whole summary while a search is set, so a match past the cut is still highlighted', () => {
    const long = `${'x'.repeat(200)}needle`;
    expect(shownSummary(long, 'needle')).toBe(long);
  });
});
