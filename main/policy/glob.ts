// Globs over canonical tool names (`<server>.<tool>`), as profile rules write them.
//
// Semantics (case-sensitive, the whole name must match):
//   `*`   any run of characters except `.`  (stays inside one dotted segment)
//   `**`  any run of characters, `.` included (three or more stars act as `**`)
//   `?`   exactly one character except `.`
//   anything else is literal (no `[...]`, `{a,b}` or escapes: canonical names never need them)
//
// Why segment-bounded `*`: `*.delete_*` should mean "a delete_ tool of any server", not
// "any name containing `.delete_`". The trap: MCP allows `.` inside tool names, so a server
// `fs` with a tool `a.b` has the canonical name `fs.a.b`, which `fs.*` does NOT match.
// Write `fs.**` for "every tool of server fs" when its tool names may contain dots.
//
// Resource rules glob over URIs with `/` as the separator instead (`file:///secret/*` is one
// level, `file:///secret/**` everything below): pass `separator: '/'`.

export interface GlobMatcher {
  readonly glob: string;
  test(name: string): boolean;
}

export function globToRegExp(glob: string, separator = '.'): RegExp {
  const one = separator === '/' ? '[^/]' : '[^.]';
  let source = '';
  for (let i = 0; i < glob.length; ) {
    const ch = glob[i]!;
    if (ch === '*') {
      let run = 0;
      while (glob[i] === '*') {
        run++;
        i++;
      }
      source += run >= 2 ? '.*' : `${one}*`;
      continue;
    }
    source += ch === '?' ? one : escapeRegExp(ch);
    i++;
  }
  // `s`: `.*` must also cross a newline, so no name can slip past a `**` rule by containing one.
  return new RegExp(`^${source}$`, 's');
}

export function compileGlob(glob: string, separator = '.'): GlobMatcher {
  const re = globToRegExp(glob, separator);
  return { glob, test: (name) => re.test(name) };
}

/** One matcher for a rule's `match` list: true when any glob matches. */
export function compileGlobs(globs: readonly string[], separator = '.'): GlobMatcher & { readonly globs: readonly string[]; first(name: string): string | undefined } {
  const matchers = globs.map((g) => compileGlob(g, separator));
  const first = (name: string) => matchers.find((m) => m.test(name))?.glob;
  return { glob: globs.join(', '), globs: [...globs], test: (name) => first(name) !== undefined, first };
}

export function matchGlob(glob: string, name: string): boolean {
  return globToRegExp(glob).test(name);
}

function escapeRegExp(ch: string): string {
  return /[\\^$.|+()[\]{}/-]/.test(ch) ? `\\${ch}` : ch;
}
