// A minimal external store: React reads it with useSyncExternalStore, plain code (and tests)
// read and write it without React. One object per concern, created once at bootstrap.
import { useSyncExternalStore } from 'react';

export interface ReadableStore<T> {
  get(): T;
  subscribe(listener: () => void): () => void;
}

export class Store<T> implements ReadableStore<T> {
  private listeners = new Set<() => void>();
  constructor(private state: T) {}

  get = (): T => this.state;

  set(next: T): void {
    if (Object.is(next, this.state)) return;
    this.state = next;
    for (const l of [...this.listeners]) l();
  }

  update(fn: (s: T) => T): void {
    this.set(fn(this.state));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

/** Subscribe a component to a store; re-renders only when the selected value changes. */
export function useStore<T, S = T>(store: ReadableStore<T>, select?: (s: T) => S): S {
  const get = (): S => (select ? select(store.get()) : (store.get() as unknown as S));
  return useSyncExternalStore(store.subscribe, get, get);
}
