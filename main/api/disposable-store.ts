// What the host API registers on the host (listeners, bus subscriptions, timers) and must take back
// when the last window leaves or the dispatcher closes: each registration adds its own undo at
// the place it is made, and dispose() runs them all, newest first (teardown mirrors setup: what
// was registered later may use what was registered before it), so nothing is removed by a
// hand-kept list that can drift from what was added.
//
// Listeners are added as `emitter.on(e, f); store.add(() => emitter.off(e, f))` on one line, not
// through a generic `listen(emitter, e, f)`: Node's typed EventEmitter<T> cannot be inferred back
// from a subclass (its map comes out as `any`), so such a helper would stop checking listeners.

export class DisposableStore {
  private readonly disposers: Array<() => void> = [];
  private disposed = false;

  /** Keeps `dispose` to run at dispose(); after dispose() it runs at once (nothing outlives the store). */
  add(dispose: () => void): void {
    if (this.disposed) dispose();
    else this.disposers.push(dispose);
  }

  /** Runs every disposer once, newest first; one that throws does not keep the others from running. */
  dispose(): void {
    this.disposed = true;
    const errors: unknown[] = [];
    while (this.disposers.length > 0) {
      try {
        this.disposers.pop()!();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} disposers threw`);
  }
}
