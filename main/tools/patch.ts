// Unified diff parsing and in-memory application (pure: no disk access), shared by
// repo.apply_patch and repo.validate_change_set.
//
// Matching is exact on context and removed lines (no fuzz that drops context); a hunk whose
// lines are not at the line its header names is searched for nearby, nearest offset first, the
// way GNU patch and git apply tolerate earlier edits that shifted the file. Lines are split on
// "\n" only, so a "\r" of a CRLF file is part of the line on both sides and round-trips.
import { ToolError } from './errors';

export interface HunkLine {
  readonly kind: ' ' | '-' | '+';
  readonly text: string;
}

export interface Hunk {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  readonly header: string;
  readonly lines: HunkLine[];
  /** "\ No newline at end of file" after the last old-side line. */
  oldNoNewline: boolean;
  /** "\ No newline at end of file" after the last new-side line. */
  newNoNewline: boolean;
}

export interface FilePatch {
  /** Path on the old side, null for a created file (`--- /dev/null`). */
  readonly oldPath: string | null;
  /** Path on the new side, null for a deleted file (`+++ /dev/null`). */
  readonly newPath: string | null;
  readonly hunks: Hunk[];
}

function parseError(message: string, line: number): ToolError {
  return new ToolError('PatchParseError', `${message} (patch line ${line})`, { patch_line: line });
}

function cleanPath(raw: string): string | null {
  let p = raw.replace(/\r$/, '');
  // "--- file\t2024-01-01 00:00:00" (diff -u timestamps) and git's quoted C-style names.
  const tab = p.indexOf('\t');
  if (tab >= 0) p = p.slice(0, tab);
  p = p.trim();
  if (p.startsWith('"') && p.endsWith('"')) {
    try { p = JSON.parse(p) as string; } catch { /* keep the raw spelling */ }
  }
  if (p === '/dev/null') return null;
  return p;
}

function stripPrefix(p: string | null, prefix: 'a/' | 'b/'): string | null {
  return p !== null && p.startsWith(prefix) ? p.slice(2) : p;
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Parses a (possibly multi-file, git or plain) unified diff. */
export function parseUnifiedDiff(text: string): FilePatch[] {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const files: FilePatch[] = [];
  let i = 0;
  // State of a "diff --git" block until its ---/+++ header (or none: empty new/deleted files).
  let gitBlock: { a: string | null; b: string | null; isNew: boolean; isDeleted: boolean; line: number } | null = null;
  const flushGitBlock = (): void => {
    if (gitBlock && (gitBlock.isNew || gitBlock.isDeleted)) {
      files.push({ oldPath: gitBlock.isNew ? null : gitBlock.a, newPath: gitBlock.isDeleted ? null : gitBlock.b, hunks: [] });
    } else if (gitBlock) {
      throw parseError('a git diff block without ---/+++ headers changes only modes or names, which this tool does not apply', gitBlock.line);
    }
    gitBlock = null;
  };
  while (i < lines.length) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.startsWith('diff --git ')) {
      flushGitBlock();
      const m = /^diff --git (?:"?a\/(.+?)"?) (?:"?b\/(.+?)"?)$/.exec(line);
      gitBlock = { a: m?.[1] ?? null, b: m?.[2] ?? null, isNew: false, isDeleted: false, line: i + 1 };
      i++;
      continue;
    }
    if (gitBlock && line.startsWith('new file mode')) { gitBlock.isNew = true; i++; continue; }
    if (gitBlock && line.startsWith('deleted file mode')) { gitBlock.isDeleted = true; i++; continue; }
    if (gitBlock && /^(rename|copy) (from|to) /.test(line)) throw parseError('renames and copies are not supported; express them as a deletion and a creation', i + 1);
    if (gitBlock && /^GIT binary patch|^Binary files /.test(line)) throw parseError('binary patches are not supported', i + 1);
    if (line.startsWith('--- ') && i + 1 < lines.length && lines[i + 1]!.startsWith('+++ ')) {
      gitBlock = null;
      const rawOld = cleanPath(line.slice(4));
      const rawNew = cleanPath(lines[i + 1]!.slice(4));
      // Strip git's a/ b/ prefixes only when the diff uses them (a plain `diff -u` has none).
      const prefixed = (rawOld === null || rawOld.startsWith('a/')) && (rawNew === null || rawNew.startsWith('b/')) && (rawOld !== null || rawNew !== null);
      const oldPath = prefixed ? stripPrefix(rawOld, 'a/') : rawOld;
      const newPath = prefixed ? stripPrefix(rawNew, 'b/') : rawNew;
      if (oldPath === null && newPath === null) throw parseError('both sides are /dev/null', i + 1);
      if (oldPath !== null && newPath !== null && oldPath !== newPath) {
        throw parseError(`renames are not supported (${oldPath} -> ${newPath}); express them as a deletion and a creation`, i + 1);
      }
      const file: FilePatch = { oldPath, newPath, hunks: [] };
      i += 2;
      while (i < lines.length && lines[i]!.startsWith('@@')) {
        i = parseHunk(lines, i, file);
      }
      if (file.hunks.length === 0) throw parseError(`no hunks for ${newPath ?? oldPath}`, i);
      files.push(file);
      continue;
    }
    // Anything else between files (commit message, "index" lines, "Only in"…) is ignored, as git does.
    i++;
  }
  flushGitBlock();
  if (files.length === 0) throw new ToolError('PatchParseError', 'no file changes found: expected a unified diff with ---/+++ headers and @@ hunks', { patch_line: 0 });
  return files;
}

function parseHunk(lines: string[], start: number, file: FilePatch): number {
  const header = lines[start]!.replace(/\r$/, '');
  const m = HUNK_RE.exec(header);
  if (!m) throw parseError(`malformed hunk header ${JSON.stringify(header)}`, start + 1);
  const hunk: Hunk = {
    oldStart: Number(m[1]), oldCount: m[2] === undefined ? 1 : Number(m[2]),
    newStart: Number(m[3]), newCount: m[4] === undefined ? 1 : Number(m[4]),
    header, lines: [], oldNoNewline: false, newNoNewline: false,
  };
  let oldSeen = 0;
  let newSeen = 0;
  let i = start + 1;
  while (i < lines.length && (oldSeen < hunk.oldCount || newSeen < hunk.newCount)) {
    const raw = lines[i]!;
    const kind = raw === '' ? ' ' : raw[0];
    if (kind === '\\') { markNoNewline(hunk); i++; continue; }
    if (kind !== ' ' && kind !== '-' && kind !== '+') break;
    const text = raw.slice(1);
    hunk.lines.push({ kind, text });
    if (kind !== '+') oldSeen++;
    if (kind !== '-') newSeen++;
    i++;
  }
  if (oldSeen !== hunk.oldCount || newSeen !== hunk.newCount) {
    throw parseError(`hunk ${header} promises ${hunk.oldCount} old and ${hunk.newCount} new lines but has ${oldSeen} and ${newSeen}`, start + 1);
  }
  if (i < lines.length && lines[i]!.startsWith('\\')) { markNoNewline(hunk); i++; }
  file.hunks.push(hunk);
  return i;
}

function markNoNewline(hunk: Hunk): void {
  const last = hunk.lines[hunk.lines.length - 1];
  if (!last) return;
  if (last.kind !== '+') hunk.oldNoNewline = true;
  if (last.kind !== '-') hunk.newNoNewline = true;
}

export interface TextLines {
  lines: string[];
  eofNewline: boolean;
}

export function splitLines(content: string): TextLines {
  if (content === '') return { lines: [], eofNewline: false };
  const lines = content.split('\n');
  const eofNewline = lines[lines.length - 1] === '';
  if (eofNewline) lines.pop();
  return { lines, eofNewline };
}

export function joinLines(t: TextLines): string {
  return t.lines.join('\n') + (t.eofNewline && t.lines.length ? '\n' : '');
}

export interface AppliedFile {
  content: string;
  hunksApplied: number;
  /** Largest distance (lines) between where a hunk said it applies and where it matched. */
  maxOffset: number;
}

function conflict(path: string, hunkIndex: number, hunk: Hunk, reason: string): ToolError {
  return new ToolError('PatchConflictError', `${path}: hunk ${hunkIndex + 1} (${hunk.header}) does not apply: ${reason}`, {
    path, hunk: hunkIndex + 1, hunk_header: hunk.header, reason,
  });
}

function matchesAt(lines: string[], at: number, expected: string[]): boolean {
  if (at < 0 || at + expected.length > lines.length) return false;
  for (let k = 0; k < expected.length; k++) if (lines[at + k] !== expected[k]) return false;
  return true;
}

/**
 * Applies a file's hunks to its current content (null when the file does not exist).
 * Returns the new content, or null when the patch deletes the file.
 */
export function applyFilePatch(path: string, current: string | null, patch: FilePatch): AppliedFile & { deleted: boolean } {
  if (patch.oldPath === null) {
    if (current !== null) throw new ToolError('PatchConflictError', `${path}: the patch creates this file but it already exists`, { path, reason: 'already_exists' });
    const out: string[] = [];
    let newNoNewline = false;
    for (const h of patch.hunks) {
      for (const l of h.lines) {
        if (l.kind !== '+') throw conflict(path, 0, h, 'a patch that creates a file may only add lines');
        out.push(l.text);
      }
      newNoNewline = h.newNoNewline;
    }
    return { content: joinLines({ lines: out, eofNewline: !newNoNewline }), hunksApplied: patch.hunks.length, maxOffset: 0, deleted: false };
  }
  if (current === null) throw new ToolError('FileNotFoundError', `${path}: the patch changes this file but it does not exist`, { path, path_attempted: path, reason: 'missing' });
  const text = splitLines(current);
  let lines = text.lines;
  let eofNewline = text.eofNewline;
  let delta = 0;
  let floor = 0;
  let maxOffset = 0;
  patch.hunks.forEach((h, index) => {
    const oldSide = h.lines.filter((l) => l.kind !== '+').map((l) => l.text);
    const newSide = h.lines.filter((l) => l.kind !== '-').map((l) => l.text);
    // For a pure insertion the header's old start names the line *after which* to insert.
    const expected = (oldSide.length === 0 ? h.oldStart : h.oldStart - 1) + delta;
    let at = -1;
    if (oldSide.length === 0) {
      at = Math.min(Math.max(expected, floor), lines.length);
    } else {
      const span = Math.max(lines.length, 1);
      for (let off = 0; off <= span && at < 0; off++) {
        if (expected + off >= floor && matchesAt(lines, expected + off, oldSide)) at = expected + off;
        else if (off > 0 && expected - off >= floor && matchesAt(lines, expected - off, oldSide)) at = expected - off;
      }
      if (at < 0) {
        const first = oldSide[0] ?? '';
        throw conflict(path, index, h, `expected ${oldSide.length} line(s) starting with ${JSON.stringify(first)} near line ${expected + 1}, not found`);
      }
    }
    const touchesEnd = at + oldSide.length === lines.length;
    if (h.oldNoNewline && (!touchesEnd || eofNewline)) throw conflict(path, index, h, 'the patch expects the file to end without a newline');
    maxOffset = Math.max(maxOffset, Math.abs(at - expected));
    lines = [...lines.slice(0, at), ...newSide, ...lines.slice(at + oldSide.length)];
    if (touchesEnd) {
      if (h.newNoNewline) eofNewline = false;
      else if (h.oldNoNewline || text.lines.length === 0) eofNewline = true;
    }
    delta += newSide.length - oldSide.length + (at - expected);
    floor = at + newSide.length;
  });
  if (patch.newPath === null) {
    if (lines.length !== 0) throw new ToolError('PatchConflictError', `${path}: the patch deletes this file but the file has ${lines.length} line(s) the patch does not list`, { path, reason: 'delete_mismatch' });
    return { content: '', hunksApplied: patch.hunks.length, maxOffset, deleted: true };
  }
  return { content: joinLines({ lines, eofNewline }), hunksApplied: patch.hunks.length, maxOffset, deleted: false };
}
