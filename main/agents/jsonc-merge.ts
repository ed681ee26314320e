// Gatehouse's entry written into a client's JSON (or JSONC) configuration by edits, never by
// re-serialising the file: VS Code's own `jsonc-parser` computes minimal text edits, so the user's
// comments, key order, indentation and line endings survive, and the diff shows only our lines.
import { applyEdits, findNodeAtLocation, modify, parseTree, printParseErrorCode, type FormattingOptions, type Node, type ParseError } from 'jsonc-parser';

export class JsoncMergeError extends Error {}

/** Indentation and line ending as the file already uses them (2 spaces / LF for a new file). */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indented?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indented ? Math.min(indented.length, 8) : 2, eol };
}

function tree(text: string, where: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !root) {
    const e = errors[0];
    const line = e ? text.slice(0, e.offset).split('\n').length : 1;
    throw new JsoncMergeError(`cannot merge into ${where}: not valid JSON (${e ? `${printParseErrorCode(e.error)} at line ${line}` : 'empty'})`);
  }
  if (root.type !== 'object') throw new JsoncMergeError(`cannot merge into ${where}: expected a JSON object at the top level`);
  return root;
}

export interface JsoncChange {
  /** Where, as a key path; `undefined` value removes it. */
  path: (string | number)[];
  value: unknown;
  /** Insert into an array at `path`'s last (numeric) index instead of replacing. */
  insert?: boolean;
}

/**
 * Applies the changes one by one (each on the text the previous one produced).
 *
 * Why not `modify()` with formatting for every change: its formatter reformats every line the
 * edit touches, so appending after `"fetch": { "command": "uvx" },` would also expand the user's
 * one-line `fetch` object. Replacing a value and appending to an object or array are done here as
 * plain text at the right place, in the file's own indentation, leaving every other line as it was;
 * `modify()` is used only where nothing of the user's shares the line (a new container, a removal).
 */
export function editJsonc(text: string, where: string, changes: JsoncChange[]): string {
  tree(text, where);
  const formattingOptions = detectFormatting(text);
  let out = text;
  for (const c of changes) {
    out = placeByHand(out, where, c, formattingOptions) ?? applyEdits(out, modify(out, c.path, c.value, { formattingOptions, isArrayInsertion: c.insert === true }));
  }
  tree(out, where); // what we write must still read
  return out;
}

function lineIndent(text: string, offset: number): string | undefined {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const lead = text.slice(start, offset);
  return /^[ \t]*$/.test(lead) ? lead : undefined;
}

/** JSON for `value`, its later lines indented under `indent`. */
function pretty(value: unknown, indent: string, f: FormattingOptions): string {
  const unit = f.insertSpaces ? ' '.repeat(f.tabSize ?? 2) : '\t';
  return JSON.stringify(value, null, unit).split('\n').join(`${f.eol ?? '\n'}${indent}`);
}

/** The offset just past a `,` that follows `from` (skipping blanks and comments), if there is one. */
function commaAfter(text: string, from: number): number | undefined {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('//', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i) < 0 ? text.length : text.indexOf('*/', i) + 2;
    else break;
  }
  return text[i] === ',' ? i + 1 : undefined;
}

/** Removes a member with the separator before it (or after it, for the first), leaving other lines alone. */
function removeByHand(text: string, where: string, path: (string | number)[]): string | undefined {
  const node = findNodeAtLocation(tree(text, where), path);
  const member = node?.parent?.type === 'property' ? node.parent : node;
  const container = member?.parent;
  if (!member || !container?.children) return undefined;
  const i = container.children.indexOf(member);
  const prev = container.children[i - 1];
  const next = container.children[i + 1];
  if (prev) return text.slice(0, prev.offset + prev.length) + text.slice(member.offset + member.length);
  if (next) return text.slice(0, member.offset) + text.slice(next.offset);
  return undefined; // the only member: modify() empties the container
}

function placeByHand(text: string, where: string, c: JsoncChange, f: FormattingOptions): string | undefined {
  if (c.path.length === 0) return undefined;
  if (c.value === undefined) return removeByHand(text, where, c.path);
  const root = tree(text, where);
  const existing = c.insert ? undefined : findNodeAtLocation(root, c.path);
  if (existing) {
    // Replace the value where it stands, indented like the line it starts on.
    const indent = lineIndent(text, (existing.parent?.type === 'property' ? existing.parent.offset : existing.offset)) ?? '';
    return text.slice(0, existing.offset) + pretty(c.value, indent, f) + text.slice(existing.offset + existing.length);
  }
  const parent = findNodeAtLocation(root, c.path.slice(0, -1));
  const last = parent?.children?.[parent.children.length - 1];
  if (!parent || !last || (parent.type !== 'object' && parent.type !== 'array')) return undefined;
  const key = c.path[c.path.length - 1];
  if (parent.type === 'array' && (typeof key !== 'number' || key !== parent.children!.length)) return undefined;
  if (parent.type === 'object' && typeof key !== 'string') return undefined;
  // Append after the last member, on a line of its own, indented like that member.
  const indent = lineIndent(text, last.offset);
  if (indent === undefined) return undefined; // the last member does not start its line: let modify() lay it out
  const eol = f.eol ?? '\n';
  const item = `${parent.type === 'object' ? `${JSON.stringify(key)}: ` : ''}${pretty(c.value, indent, f)}`;
  const end = last.offset + last.length;
  const trailing = commaAfter(text, end);
  // A file that ends its members with a comma (JSONC allows it) keeps doing so.
  if (trailing !== undefined) return `${text.slice(0, trailing)}${eol}${indent}${item},${text.slice(trailing)}`;
  return `${text.slice(0, end)},${eol}${indent}${item}${text.slice(end)}`;
}

/** The value at `path` (objects and arrays as plain values), or undefined. */
export function valueAt(text: string, where: string, path: (string | number)[]): { type: Node['type']; value: unknown; children?: Node[] } | undefined {
  const node = findNodeAtLocation(tree(text, where), path);
  if (!node) return undefined;
  return { type: node.type, value: nodeValue(node), ...(node.children ? { children: node.children } : {}) };
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries((node.children ?? []).map((p) => [p.children![0]!.value as string, p.children![1] ? nodeValue(p.children![1]) : undefined]));
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}
