// The audit writer's row queues (writer.ts).
/** A FIFO with O(1) shift, so dropping the oldest row under pressure stays cheap. */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(v: T): void {
    this.items.push(v);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const v = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return v;
  }

  /** Removes and returns up to `max` rows from the front. */
  take(max: number): T[] {
    if (max >= this.length) {
      const out = (this.head ? this.items.slice(this.head) : this.items) as T[];
      this.items = [];
      this.head = 0;
      return out;
    }
    const out = this.items.slice(this.head, this.head + max) as T[];
    this.items = this.items.slice(this.head + max);
    this.head = 0;
    return out;
  }

  /** Put rows back in front (a failed batch), keeping their order. */
  prepend(vs: T[]): void {
    if (vs.length === 0) return;
    this.items = (vs as (T | undefined)[]).concat(this.items.slice(this.head));
    this.head = 0;
  }
}
