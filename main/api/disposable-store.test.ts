// DisposableStore (disposable-store.ts): what the host API registers is taken back newest first,
// every disposer runs even when one throws, and a registration after dispose() is undone at once.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DisposableStore } from './disposable-store';

describe('DisposableStore', () => {
  it('runs every disposer once, newest first', () => {
    const store = new DisposableStore();
    const ran: number[] = [];
    for (const n of [1, 2, 3]) store.add(() => ran.push(n));
    store.dispose();
    store.dispose();
    expect(ran).toEqual([3, 2, 1]);
  });

  it('takes listeners off a real emitter, and runs the others when one disposer throws', () => {
    const emitter = new EventEmitter<{ tick: [number] }>();
    const store = new DisposableStore();
    const seen: number[] = [];
    const onTick = (n: number) => seen.push(n);
    emitter.on('tick', onTick);
    store.add(() => emitter.off('tick', onTick));
    store.add(() => {
      throw new Error('a broken disposer');
    });
    emitter.emit('tick', 1);
    expect(() => store.dispose()).toThrow(/a broken disposer/);
    emitter.emit('tick', 2);
    expect(seen).toEqual([1]);
    expect(emitter.listenerCount('tick')).toBe(0);
  });

  it('undoes a registration made after dispose() at once, so nothing outlives the store', () => {
    const store = new DisposableStore();
    store.dispose();
    let undone = false;
    store.add(() => (undone = true));
    expect(undone).toBe(true);
  });
});
