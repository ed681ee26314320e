// http(s) links in a line of terminal text. `@xterm/addon-web-links` is not a dependency, so the
// Terminal view registers its own link provider with this (a small, testable subset: URLs on one
// buffer line; a URL wrapped onto the next line is matched up to the wrap).

export interface FoundLink {
  /** 0-based index of the first character. */
  start: number;
  /** 0-based index one past the last character. */
  end: number;
  url: string;
}

const URL_RE = /\bhttps?:\/\/[^\s"'<>`]+/g;
// Punctuation that ends a sentence or closes a bracket is rarely part of the URL.
const TRAILING = /[.,;:!?)\]}]+$/;

export function findLinks(line: string): FoundLink[] {
  const out: FoundLink[] = [];
  for (const m of line.matchAll(URL_RE)) {
    let url = m[0];
    const trail = TRAILING.exec(url);
    // Keep a closing bracket that has its opening one inside the URL (wiki-style links).
    if (trail) {
      let cut = trail[0];
      while (cut.startsWith(')') && count(url, '(') > count(url.slice(0, url.length - cut.length), ')')) cut = cut.slice(1);
      url = url.slice(0, url.length - cut.length);
    }
    if (/^https?:\/\/[^/?#]/.test(url)) out.push({ start: m.index, end: m.index + url.length, url });
  }
  return out;
}

function count(text: string, ch: string): number {
  let n = 0;
  for (const c of text) if (c === ch) n++;
  return n;
}
