// Remembered window bounds, kept in the data dir as window-state.json. Pure apart from the
// two small file functions (no electron): main.ts hands in the displays' work areas, so a
// window saved on a monitor that is gone now opens centred on one that is there.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  width: number;
  height: number;
  /** Absent: let the OS centre the window. */
  x?: number;
  y?: number;
  maximized: boolean;
}

export const WINDOW_STATE_FILE = 'window-state.json';
export const DEFAULT_WINDOW_STATE: Readonly<WindowState> = Object.freeze({ width: 1400, height: 900, maximized: false });
export const MIN_WIDTH = 900;
export const MIN_HEIGHT = 600;
/** How much of the title bar (width, px) must be on a display for saved coordinates to be kept. */
const VISIBLE_PX = 64;
const TITLE_BAR_PX = 32;

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Turns whatever was on disk into bounds that fit the displays there are now: sizes clamped to
 * [MIN, largest work area], and x/y dropped unless the top of the window lands on a display.
 */
export function sanitizeWindowState(raw: unknown, workAreas: readonly Rect[]): WindowState {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  // No display known (headless, or the screen module not ready): no upper bound to apply.
  const maxW = workAreas.length > 0 ? Math.max(MIN_WIDTH, ...workAreas.map((a) => a.width)) : Number.POSITIVE_INFINITY;
  const maxH = workAreas.length > 0 ? Math.max(MIN_HEIGHT, ...workAreas.map((a) => a.height)) : Number.POSITIVE_INFINITY;
  const clamp = (v: unknown, min: number, max: number, dflt: number) => (finite(v) ? Math.round(Math.min(max, Math.max(min, v))) : Math.min(dflt, max));
  const state: WindowState = {
    width: clamp(r.width, MIN_WIDTH, maxW, DEFAULT_WINDOW_STATE.width),
    height: clamp(r.height, MIN_HEIGHT, maxH, DEFAULT_WINDOW_STATE.height),
    maximized: r.maximized === true,
  };
  if (finite(r.x) && finite(r.y)) {
    const x = Math.round(r.x);
    const y = Math.round(r.y);
    // The top strip is what a person drags; it must be reachable, not just a corner pixel.
    const titleBar: Rect = { x, y, width: state.width, height: TITLE_BAR_PX };
    if (workAreas.some((a) => grabbable(a, titleBar))) {
      state.x = x;
      state.y = y;
    }
  }
  return state;
}

function grabbable(area: Rect, titleBar: Rect): boolean {
  const w = Math.min(area.x + area.width, titleBar.x + titleBar.width) - Math.max(area.x, titleBar.x);
  const h = Math.min(area.y + area.height, titleBar.y + titleBar.height) - Math.max(area.y, titleBar.y);
  return w >= VISIBLE_PX && h >= TITLE_BAR_PX / 2;
}

/** Reads the saved state; a missing or corrupt file gives the defaults (never throws). */
export function loadWindowState(dataDir: string, workAreas: readonly Rect[]): WindowState {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.join(dataDir, WINDOW_STATE_FILE), 'utf8'));
  } catch {
    raw = undefined;
  }
  return sanitizeWindowState(raw, workAreas);
}

/** Writes atomically (temp file + rename), so a crash mid-write leaves the old file. */
export function saveWindowState(dataDir: string, state: WindowState): void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, WINDOW_STATE_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  const out: WindowState = { width: Math.round(state.width), height: Math.round(state.height), maximized: state.maximized };
  if (finite(state.x) && finite(state.y)) {
    out.x = Math.round(state.x);
    out.y = Math.round(state.y);
  }
  writeFileSync(tmp, `${JSON.stringify(out, null, 2)}\n`);
  renameSync(tmp, file);
}
