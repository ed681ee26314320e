// Splits a server's stderr into log lines (ARCHITECTURE.md, "Stdout vs stderr"). A
// StringDecoder carries a multibyte UTF-8 character split across two reads over to the next
// chunk (the trick Hyper uses for terminal output), so no line ever shows U+FFFD for a
// character that arrived whole.
import { StringDecoder } from 'node:string_decoder';

export const DEFAULT_MAX_LINE_LENGTH = 8 * 1024;
/** Marks where an overlong line was cut: at the end of a piece and the start of its continuation. */
export const CUT_MARKER = '…';

export interface LineSplitterOptions {
  /** Longest line kept whole, in UTF-16 code units; longer lines are cut into pieces. */
  maxLineLength?: number;
  /**
   * Secrets are replaced before a line is cut (docs/gateway.md "Redaction before any cut"): a line over the limit is redacted
   * whole, and while it is still streaming in, enough of its end is held back that a secret
   * straddling the cut is complete (and so replaced) before any piece is emitted.
   */
  redactor?: { redactString(text: string): string; readonly longestSecret: number };
}

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private readonly max: number;
  private readonly redactor: LineSplitterOptions['redactor'];
  private partial = '';
  /** The pending text continues a line that was already cut. */
  private continued = false;

  constructor(options: LineSplitterOptions = {}) {
    this.max = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.redactor = options.redactor;
    if (!Number.isInteger(this.max) || this.max < 2) {
      throw new Error(`maxLineLength: expected an integer ≥ 2, got ${String(options.maxLineLength)}`);
    }
  }

  /** Characters held while waiting for a newline: never more than maxLineLength (+ the longest secret with a redactor). */
  get bufferedLength(): number {
    return this.partial.length;
  }

  push(chunk: Buffer | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const out: string[] = [];
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1) break;
      this.partial += text.slice(start, nl);
      this.emitLine(out);
      start = nl + 1;
    }
    if (start < text.length) {
      this.partial += text.slice(start);
      this.cutOverlong(out);
    }
    return out;
  }

  /** The stream ended: the last line needs no newline. */
  end(): string[] {
    const out: string[] = [];
    this.partial += this.decoder.end();
    if (this.partial.length > 0) this.emitLine(out);
    this.continued = false;
    return out;
  }

  private emitLine(out: string[]): void {
    if (this.partial.endsWith('\r')) this.partial = this.partial.slice(0, -1);
    // The line may be up to `max` + the text of this chunk before its newline: cut it too.
    this.cutOverlong(out, true);
    const line = this.partial;
    this.partial = '';
    if (this.continued) {
      if (line.length > 0) out.push(CUT_MARKER + line);
      this.continued = false;
    } else {
      out.push(line);
    }
  }

  /** `complete`: the partial is a whole line (nothing more of it will come). */
  private cutOverlong(out: string[], complete = false): void {
    const hold = complete || !this.redactor ? 0 : Math.min(Math.floor(this.max / 2), Math.max(0, this.redactor.longestSecret - 1));
    if (this.partial.length <= this.max + hold) return;
    if (this.redactor) this.partial = this.redactor.redactString(this.partial);
    while (this.partial.length > this.max + hold) {
      let cut = this.max;
      // Never separate a surrogate pair.
      const code = this.partial.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
      if (this.redactor) {
        // Nor a «secret:NAME» marker: the piece would show a broken placeholder.
        const open = this.partial.lastIndexOf('«', cut - 1);
        if (open > this.max / 2 && this.partial.indexOf('»', open) >= cut) cut = open;
      }
      const piece = this.partial.slice(0, cut);
      out.push((this.continued ? CUT_MARKER : '') + piece + CUT_MARKER);
      this.partial = this.partial.slice(cut);
      this.continued = true;
    }
  }
}
