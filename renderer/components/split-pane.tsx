// Two panes with a draggable, keyboard-resizable separator (WAI-ARIA window splitter).
// The size of the first pane is remembered per `id` in localStorage.
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';

export function SplitPane({ id, first, second, initial = 320, min = 200, max = 720, label = 'Resize panes' }: { id: string; first: ReactNode; second: ReactNode; initial?: number; min?: number; max?: number; label?: string }) {
  const key = `gatehouse.split.${id}`;
  const [size, setSize] = useState<number>(() => {
    const saved = Number(readStorage(key));
    return Number.isFinite(saved) && saved >= min && saved <= max ? saved : initial;
  });
  const root = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);

  useEffect(() => writeStorage(key, String(size)), [key, size]);

  const clamp = useCallback((n: number) => Math.max(min, Math.min(max, n)), [min, max]);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    dragging.current = true;
    e.currentTarget.setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    if (!dragging.current || !root.current) return;
    const rect = root.current.getBoundingClientRect();
    setSize(clamp(e.clientX - rect.left));
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>): void => {
    dragging.current = false;
    e.currentTarget.releasePointerCapture(e.pointerId);
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    const step = e.shiftKey ? 64 : 16;
    if (e.key === 'ArrowLeft') setSize((s) => clamp(s - step));
    else if (e.key === 'ArrowRight') setSize((s) => clamp(s + step));
    else if (e.key === 'Home') setSize(min);
    else if (e.key === 'End') setSize(max);
    else return;
    e.preventDefault();
  };

  return (
    <div className="split" ref={root}>
      <div className="split-first" style={{ width: size }}>
        {first}
      </div>
      <div
        className="split-handle"
        role="separator"
        aria-orientation="vertical"
        aria-label={label}
        aria-valuenow={size}
        aria-valuemin={min}
        aria-valuemax={max}
        tabIndex={0}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onKeyDown={onKeyDown}
      />
      <div className="split-second">{second}</div>
    </div>
  );
}

export function readStorage(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function writeStorage(key: string, value: string): void {
  try {
    globalThis.localStorage?.setItem(key, value);
  } catch {
    // private mode or storage disabled: the preference just is not remembered
  }
}
