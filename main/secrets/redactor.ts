// Values known to be secret are replaced before anything is stored or shown
// (ARCHITECTURE.md, "Where state lives"), and before anything reaches an agent (the gateway's
// downstream channels redact every message they send: main/gateway/session-setup.ts,
// main/gateway/new-era-http.ts). One Redactor per launched profile collects every value that
// came from `${secret:…}` (and header/env values the loader marks). Each value is matched in
// every form ./secret-forms.ts lists, and also when ANSI escapes or invisible characters split it.
import { mayHideSplit, secretForms, withoutHiddenSplits } from './secret-forms';

const MIN_SECRET_LENGTH = 4; // shorter values would redact innocent substrings everywhere

export class Redactor {
  private readonly secrets = new Map<string, string>(); // value → name
  private forms = new Map<string, string>(); // any form of a value → name
  private pattern: RegExp | undefined;

  add(name: string, value: string): void {
    if (value.length < MIN_SECRET_LENGTH || this.secrets.has(value)) return;
    this.secrets.set(value, name);
    for (const form of secretForms(value)) if (!this.forms.has(form)) this.forms.set(form, name);
    this.pattern = undefined;
  }

  get size(): number {
    return this.secrets.size;
  }

  /** Length of the longest form of a secret (UTF-16 units): how much text a cut must hold back to keep one whole. */
  get longestSecret(): number {
    let n = 0;
    for (const v of this.forms.keys()) n = Math.max(n, v.length);
    return n;
  }

  /** Merge another redactor's secrets into this one. */
  absorb(other: Redactor): void {
    for (const [value, name] of other.secrets) this.add(name, value);
  }

  redactString(text: string): string {
    if (this.secrets.size === 0) return text;
    const re = this.regex();
    re.lastIndex = 0;
    const out = re.test(text) ? this.replaceAll(text, re) : text;
    // Rare and only then costly: a secret split by an escape sequence or an invisible character
    // reads whole on a terminal or in the window. Such a string loses those characters, and
    // only when a secret is found in what is left.
    if (!mayHideSplit(out)) return out;
    const plain = withoutHiddenSplits(out);
    re.lastIndex = 0;
    return re.test(plain) ? this.replaceAll(plain, re) : out;
  }

  /**
   * Where configured secrets (any form ./secret-forms.ts lists) occur in `text`: name and UTF-16
   * range, never the value. For the data scanner's findings (main/data/); a form split by an
   * escape sequence is not located (redactString still replaces it).
   */
  locate(text: string): Array<{ name: string; start: number; end: number }> {
    if (this.secrets.size === 0) return [];
    const re = this.regex();
    re.lastIndex = 0;
    const out: Array<{ name: string; start: number; end: number }> = [];
    for (const m of text.matchAll(re)) out.push({ name: this.forms.get(m[0]) ?? '?', start: m.index, end: m.index + m[0].length });
    return out;
  }

  /**
   * Whether any string of a JSON value (keys too) holds a configured secret in any form, split
   * or not: redactJson would change it. One regex test per string and nothing allocated, so a
   * message with no secret in it (most of them) costs no walk that copies (docs/gateway-performance.md).
   */
  holds(value: unknown): boolean {
    if (this.secrets.size === 0) return false;
    return this.holdsIn(value, this.regex(), 0);
  }

  private holdsIn(value: unknown, re: RegExp, depth: number): boolean {
    if (typeof value === 'string') return this.holdsString(value, re);
    if (value === null || typeof value !== 'object' || depth > 256) return false;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (this.holdsIn(value[i], re, depth + 1)) return true;
      return false;
    }
    const obj = value as Record<string, unknown>;
    for (const k in obj) {
      if (!Object.hasOwn(obj, k)) continue;
      if (this.holdsString(k, re) || this.holdsIn(obj[k], re, depth + 1)) return true;
    }
    return false;
  }

  private holdsString(text: string, re: RegExp): boolean {
    re.lastIndex = 0;
    if (re.test(text)) return true;
    if (!mayHideSplit(text)) return false;
    re.lastIndex = 0;
    return re.test(withoutHiddenSplits(text));
  }

  /**
   * A JSON value with every string redacted (keys too). Parts with nothing to redact are the
   * very same objects, and a value with nothing to redact is returned itself: the downstream
   * boundary runs this on every message, and most carry no secret.
   */
  redactJson<T>(value: T): T {
    if (!this.holds(value)) return value;
    return this.walk(value, 0) as T;
  }

  private replaceAll(text: string, re: RegExp): string {
    re.lastIndex = 0;
    return text.replace(re, (m) => `«secret:${this.forms.get(m) ?? '?'}»`);
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.redactString(value);
    if (value === null || typeof value !== 'object' || depth > 256) return value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        const r = this.walk(v, depth + 1);
        if (r !== v) (out ??= value.slice())[i] = r;
      }
      return out ?? value;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    let changed = false;
    const next: Array<[string, unknown]> = entries.map(([k, v]) => {
      const rk = this.redactString(k);
      const rv = this.walk(v, depth + 1);
      if (rk !== k || rv !== v) changed = true;
      return [rk, rv];
    });
    return changed ? Object.fromEntries(next) : value;
  }

  private regex(): RegExp {
    if (!this.pattern) {
      // Longest first, so a secret that contains another is replaced whole.
      const alts = [...this.forms.keys()].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      this.pattern = new RegExp(alts.join('|'), 'g');
    }
    return this.pattern;
  }
}
