// Absolute paths in an imported server's args become grants: a folder write, a file read; the
// system's folders, the home folder as a whole and paths not on this machine are not granted.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pathGrants } from './path-grants';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'gh-path-grants-'));
  mkdirSync(path.join(dir, 'projects'));
  writeFileSync(path.join(dir, 'notes.db'), '');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('grants folders for writing and files for reading, from plain and --flag=value args', () => {
  const g = pathGrants(['-y', '@modelcontextprotocol/server-filesystem', path.join(dir, 'projects'), `--db=${path.join(dir, 'notes.db')}`, 'https://example.com/x', '${workspace}/y']);
  expect(g.write).toEqual([path.join(dir, 'projects')]);
  expect(g.read).toEqual([path.join(dir, 'notes.db')]);
  expect(g.skipped).toEqual([]);
});

it('does not grant /, system folders, the home folder or paths that are not here', () => {
  const g = pathGrants(['/', '/etc', '~/', '/Users/alice/Desktop'], dir);
  expect(g.write).toEqual([]);
  expect(g.read).toEqual([]);
  expect(g.skipped).toHaveLength(4);
  expect(g.skipped[3]).toMatch(/does not exist on this machine/);
});

it('reads ~/ as the home folder', () => {
  expect(pathGrants(['~/projects'], dir).write).toEqual(['~/projects']);
});
