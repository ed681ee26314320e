// Values known to be secret are replaced before anything is stored or shown
// (ARCHITECTURE.md, "Where state lives"). One Redactor per launched profile collects
// every value that came from `${secret:…}` (and header/env values the loader marks).

const MIN_SECRET_LENGTH = 4; // shorter values would redact innocent substrings everywhere

export class Redactor {
  private readonly secrets = new Map<string, string>(); // value → name
  private pattern: RegExp | undefined;

  add(name: string, value: string): void {
    if (value.length < MIN_SECRET_LENGTH || this.secrets.has(value)) return;
    this.secrets.set(value, name);
    this.pattern = undefined;
  }

  get size(): number {
    return this.secrets.size;
  }

  /** Length of the longest secret (UTF-16 units): how much text a cut must hold back to keep one whole. */
  get longestSecret(): number {
    let n = 0;
    for (const v of this.secrets.keys()) n = Math.max(n, v.length);
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
    return text.replace(re, (m) => `«secret:${this.secrets.get(m) ?? '?'}»`);
  }

  /** Deep copy of a JSON value with every string redacted (keys too). */
  redactJson<T>(value: T): T {
    if (this.secrets.size === 0) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redactString(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.redactString(k)] = this.walk(v);
      return out;
    }
    return value;
  }

  private regex(): RegExp {
    if (!this.pattern) {
      // Longest first, so a secret that contains another is replaced whole.
      const alts = [...this.secrets.keys()]
        .sort((a, b) => b.length - a.length)
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      this.pattern = new RegExp(alts.join('|'), 'g');
    }
    return this.pattern;
  }
}
