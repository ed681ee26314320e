// No tracked file points a reader to a tracker entry by its number: a newcomer cannot open
// one. A comment, test name or log string cites what it relies on instead: a docs/ section, a
// file, a spec section or a measured number (STYLE.md: comments say why and cite what can be
// opened). The scan runs over every tracked file's text, so a probe line added anywhere fails it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The word (either case, singular or plural), then a number after a space, "#" or "-".
const ISSUE_REF = /\b[Ii]ssues?[ #_-]*\d+\b/;

/** Tracked paths allowed to keep such references, each with its reason. None today. */
const EXCLUDED = new Map<string, string>();

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out.split('\0').filter((f) => f.length > 0 && !EXCLUDED.has(f));
}

/** `file:line: text` for every line that names an issue by number. */
function issueRefs(file: string, text: string): string[] {
  if (text.includes('\0')) return []; // binary (icons, fonts): no comments to read
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (ISSUE_REF.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
  });
  return found;
}

describe('no issue references', () => {
  it('the pattern catches every spelling used before and leaves ordinary words alone', () => {
    // Built by concatenation so this file's own text never matches the scan.
    const word = 'iss' + 'ue';
    for (const probe of [`(${word} 11)`, `I${word.slice(1)} 5, end to end`, `${word} #3`, `${word}s 10 and 11`, `${word}-9 attacker`, `${word} 9's finding`]) {
      expect(ISSUE_REF.test(probe), probe).toBe(true);
    }
    for (const plain of [`t${word} 3`, `${word}s of the queue`, `${word}Id 3`, `${word}r2 5`]) {
      expect(ISSUE_REF.test(plain), plain).toBe(false);
    }
  });

  it('no tracked file names an issue by number; each cites a docs/ section, a file, a spec or a figure', () => {
    const files = trackedFiles();
    // A checkout always has its sources tracked; an empty list would make the scan pass vacuously.
    expect(files.length, 'tracked files from git ls-files').toBeGreaterThan(100);
    const found = files.flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(path.join(ROOT, file), 'utf8');
      } catch {
        return []; // tracked but deleted in the work tree: nothing to read
      }
      return issueRefs(file, text);
    });
    expect(found, 'expected no "issue N" references (cite a docs/ section, a file, a spec section or a measured number instead); found').toEqual([]);
  });
});
