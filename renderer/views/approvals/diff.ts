// Classifies a unified diff's lines for display, with old/new line numbers from the hunk
// headers (`@@ -a,b +c,d @@`). Display only: the tools server does the real parsing.

export type DiffLineKind = 'file' | 'hunk' | 'add' | 'del' | 'ctx' | 'meta';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  oldNo?: number;
  newNo?: number;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

export function classifyDiff(patch: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const text of lines) {
    const h = HUNK.exec(text);
    if (h) {
      oldNo = Number(h[1]);
      newNo = Number(h[2]);
      inHunk = true;
      out.push({ kind: 'hunk', text });
    } else if (text.startsWith('--- ') || text.startsWith('+++ ')) {
      inHunk = false;
      out.push({ kind: 'file', text });
    } else if (!inHunk) {
      out.push({ kind: 'meta', text });
    } else if (text.startsWith('+')) {
      out.push({ kind: 'add', text, newNo: newNo++ });
    } else if (text.startsWith('-')) {
      out.push({ kind: 'del', text, oldNo: oldNo++ });
    } else if (text.startsWith('\\')) {
      out.push({ kind: 'meta', text });
    } else {
      out.push({ kind: 'ctx', text, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return out;
}

export function diffStats(lines: DiffLine[]): { added: number; removed: number; files: number } {
  let added = 0;
  let removed = 0;
  let files = 0;
  for (const l of lines) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
    else if (l.kind === 'file' && l.text.startsWith('+++ ')) files++;
  }
  return { added, removed, files };
}

/** True when a call's arguments carry a patch worth showing as a diff. */
export function patchArgument(tool: string, advertised: string | undefined, args: unknown): string | null {
  const isPatchTool = /(^|[._])apply_patch$/.test(tool) || advertised === 'apply_patch';
  if (!isPatchTool || typeof args !== 'object' || args === null) return null;
  const patch = (args as Record<string, unknown>).patch;
  return typeof patch === 'string' ? patch : null;
}
