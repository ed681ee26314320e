// Parses a profile's YAML and keeps the document, so any later error (schema, expansion)
// can point at the exact line and column of the node it is about.
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';

export interface SourcePos {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/** Where an issue points: the value at a path, or the key that names it (unknown keys, bad ids). */
export type Anchor = 'value' | 'key';

export interface YamlSource {
  /** The plain JS value of the document (undefined for an empty file). */
  data: unknown;
  /** Syntax errors, each at its position; empty when the text parsed. */
  syntaxErrors: { pos: SourcePos; message: string }[];
  /**
   * Position of the node at `path`. A path that does not exist (a missing key) points at the
   * deepest map or list that does. With `needle`, points inside a scalar at that text when
   * the source contains it verbatim (so an expansion error can point at its `${…}`).
   */
  locate(path: readonly PropertyKey[], anchor?: Anchor, needle?: string): SourcePos;
}

export function parseYamlSource(text: string): YamlSource {
  const lineCounter = new LineCounter();
  // uniqueKeys (the default) makes a duplicated key a syntax error rather than "last one wins".
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const pos = (offset: number): SourcePos => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };

  const syntaxErrors = doc.errors.map((e) => ({
    pos: e.linePos ? { line: e.linePos[0].line, column: e.linePos[0].col } : pos(e.pos[0]),
    // yaml appends " at line X, column Y:" and a source excerpt; we print our own location.
    message: firstLine(e.message).replace(/ at line \d+, column \d+:?$/, ''),
  }));

  let data: unknown;
  if (syntaxErrors.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      syntaxErrors.push({ pos: { line: 1, column: 1 }, message: err instanceof Error ? err.message : String(err) });
    }
  }

  return {
    data,
    syntaxErrors,
    locate(path, anchor = 'value', needle) {
      const found = findNode(doc, path);
      // An empty value (`command:`) is a zero-width null scalar after the colon; its key reads better.
      const empty = isScalar(found.node) && found.node.value === null && found.node.range?.[0] === found.node.range?.[1];
      const node = (anchor === 'key' || empty) && found.complete && found.key ? found.key : (found.node ?? found.key ?? found.parent);
      const start = node?.range?.[0] ?? 0;
      if (needle && node && isScalar(node) && node.range) {
        const source = text.slice(node.range[0], node.range[1]);
        const at = source.indexOf(needle);
        if (at >= 0) return pos(node.range[0] + at);
      }
      return pos(start);
    },
  };
}

interface Found {
  /** The node at the full path (null for an empty value such as `command:`). */
  node: Node | null;
  /** The key node of the last path segment, when it is a map entry. */
  key: Node | null;
  /** The deepest node that exists along the path. */
  parent: Node | null;
  complete: boolean;
}

function findNode(doc: Document, path: readonly PropertyKey[]): Found {
  let current = (doc.contents ?? null) as Node | null;
  let key: Node | null = null;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const parent = current;
    if (isMap(current)) {
      const pair = current.items.find((p) => isPair(p) && keyString(p.key) === String(seg));
      if (!pair) return { node: null, key: null, parent, complete: false };
      key = (pair.key as Node | null) ?? null;
      current = (pair.value as Node | null) ?? null;
    } else if (isSeq(current) && typeof seg === 'number' && current.items[seg] !== undefined) {
      key = null;
      current = (current.items[seg] as Node | null) ?? null;
    } else {
      // An empty value (`files:`) is reported at its key; anything else at the deepest node.
      return { node: null, key: null, parent: parent ?? key, complete: false };
    }
  }
  return { node: current, key, parent: current ?? key, complete: true };
}

function keyString(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return key === null || key === undefined ? undefined : String(key);
}

function firstLine(s: string): string {
  const i = s.indexOf('\n');
  return (i < 0 ? s : s.slice(0, i)).trim();
}
