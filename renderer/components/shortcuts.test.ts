import { describe, expect, it } from 'vitest';
import { leavesTerminal, matchesShortcut, parseShortcut, shortcutRows } from './shortcuts';
import { attentionTitle } from './attention';
import { rankCommands, type PaletteCommand } from './palette-search';

const key = (k: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {}) => ({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });

describe('the way out of the Terminal', () => {
  it('hands F6, Alt+A, Alt+T and Alt+1…9 to the app', () => {
    for (const e of [key('F6'), key('F6', { shiftKey: true }), key('a', { altKey: true }), key('t', { altKey: true }), key('1', { altKey: true }), key('9', { altKey: true })]) expect(leavesTerminal(e, false)).toBe(true);
  });
  it('leaves Esc, Tab, Ctrl+letters, plain letters and Alt+other letters to the shell', () => {
    for (const e of [key('Escape'), key('Tab'), key('Tab', { shiftKey: true }), key('c', { ctrlKey: true }), key('k', { ctrlKey: true }), key('a'), key('b', { altKey: true }), key('0', { altKey: true }), key('F6', { ctrlKey: true })]) expect(leavesTerminal(e, false)).toBe(false);
  });
});

describe('shortcuts', () => {
  it('F6 is a key of its own, not a typed letter', () => {
    expect(matchesShortcut(key('F6'), parseShortcut('f6'), false)).toBe(true);
    expect(matchesShortcut(key('F6', { shiftKey: true }), parseShortcut('f6'), false)).toBe(false);
  });
  it('the list names only keys that exist: no Ctrl+10 for the tenth view', () => {
    const views = Array.from({ length: 10 }, (_, i) => ({ label: `View ${i + 1}` }));
    const keys = shortcutRows(views, false).flatMap((r) => r.keys);
    expect(keys).toContain('Ctrl+9');
    expect(keys).toContain('Alt+9');
    expect(keys.filter((k) => /\+10$/.test(k))).toEqual([]);
    expect(keys).toContain('Ctrl+K');
    expect(keys).toContain('F6');
  });
  it('every action of an approval card has a key in the list', () => {
    const does = shortcutRows([], false).map((r) => r.does).join('\n');
    for (const action of ['Allow once', 'Allow for session', 'Deny', 'Allow the tool for the session', 'Next approval', 'Previous approval', 'exchange in Traffic', 'Leave the approvals tray', 'Show or hide the approvals tray']) expect(does).toContain(action);
  });
});

describe('the tab title', () => {
  it('shows the number of waiting approvals', () => {
    expect(attentionTitle(0)).toBe('Gatehouse');
    expect(attentionTitle(2)).toBe('(2) Gatehouse');
    expect(attentionTitle(250)).toBe('(99+) Gatehouse');
  });
});

describe('the command palette search', () => {
  const cmd = (id: string, group: string, title: string): PaletteCommand => ({ id, group, title, run: () => {} });
  const all = [cmd('v:traffic', 'View', 'Open Traffic'), cmd('v:tools', 'View', 'Open Tool console'), cmd('l:demo', 'Launch', 'Launch demo'), cmd('a:deny', 'Approvals', 'Deny the oldest pending request'), cmd('t:clear', 'Traffic', 'Clear Traffic filters')];
  it('lists everything, in order, for an empty query', () => {
    expect(rankCommands(all, '  ').map((c) => c.id)).toEqual(all.map((c) => c.id));
  });
  it('matches prefixes of every word, and forgives a typo', () => {
    expect(rankCommands(all, 'lau dem').map((c) => c.id)).toEqual(['l:demo']);
    expect(rankCommands(all, 'trafic').map((c) => c.id)).toEqual(expect.arrayContaining(['v:traffic', 't:clear']));
    expect(rankCommands(all, 'clear traf')[0]?.id).toBe('t:clear');
    expect(rankCommands(all, 'deny')[0]?.id).toBe('a:deny');
  });
  it('finds nothing for words that are not there', () => {
    expect(rankCommands(all, 'zzzz qqq')).toEqual([]);
  });
});
