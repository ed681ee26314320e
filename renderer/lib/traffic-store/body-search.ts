// A text query over live rows' messages (docs/ui-layout.md "Traffic's memory and render path"): the window no longer holds them, so the
// rows already held are searched by the host (`traffic:search`, through `search`), and a row
// that arrives while the query is set is checked on arrival, before its message goes.
import { bodyText } from './body-shed';
import type { TrafficEvent, TrafficRow } from './types';

export type BodySearchFn = (text: string, since: number) => Promise<number[]>;

export class BodySearch {
  private text = '';
  private seqs = new Set<number>();
  search: BodySearchFn | undefined;

  /** A new query: forget the old hits, ask the host for rows since `since`, then call `found`. */
  reset(text: string, since: number | undefined, found: () => void): void {
    if (text === this.text) return;
    const seqs = new Set<number>();
    this.text = text;
    this.seqs = seqs;
    if (!text || !this.search || since === undefined) return;
    void this.search(text, since).then(
      (hits) => {
        if (this.seqs !== seqs) return; // the query changed meanwhile
        for (const seq of hits) seqs.add(seq);
        found();
      },
      () => {},
    );
  }

  /** A live event while its message is still here. */
  arrived(ev: TrafficEvent): void {
    if (this.text && bodyText(ev).includes(this.text)) this.seqs.add(ev.seq);
  }

  /** Whether the query is in the row's message or its pair's. */
  readonly hit = (row: TrafficRow): boolean =>
    this.seqs.size > 0 && (this.seqs.has(row.seq) || (row.pair !== undefined && this.seqs.has(row.pair.seq)));
}
