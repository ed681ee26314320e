import { describe, expect, it } from 'vitest';
import { filterByText } from './picker-filter';

describe('filterByText', () => {
  const items = [
    { name: 'echo', title: 'Echo back' },
    { name: 'add', title: undefined },
    { name: 'long_running', title: 'Takes a while' },
  ];
  const fields = (i: (typeof items)[number]) => [i.name, i.title];

  it('keeps the items whose fields contain the query, ignoring case and surrounding blanks', () => {
    expect(filterByText(items, '  ECHO ', fields).map((i) => i.name)).toEqual(['echo']);
    expect(filterByText(items, 'while', fields).map((i) => i.name)).toEqual(['long_running']);
  });

  it('keeps everything for a blank query, as a copy', () => {
    const out = filterByText(items, '  ', fields);
    expect(out).toEqual(items);
    expect(out).not.toBe(items);
  });

  it('never matches across two fields', () => {
    // "echoecho" would match "echo" + "Echo back" if the fields were joined without a separator.
    expect(filterByText(items, 'echoecho', fields)).toEqual([]);
    expect(filterByText(items, 'add', fields).map((i) => i.name)).toEqual(['add']);
  });
});
