import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_WINDOW_STATE, MIN_HEIGHT, MIN_WIDTH, WINDOW_STATE_FILE, loadWindowState, sanitizeWindowState, saveWindowState, type Rect } from './window-state';

const hd: Rect = { x: 0, y: 0, width: 1920, height: 1050 };
const right: Rect = { x: 1920, y: 0, width: 2560, height: 1400 };
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-window-state-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('window state', () => {
  it('defaults to 1400x900, centred', () => {
    expect(sanitizeWindowState(undefined, [hd])).toEqual({ width: 1400, height: 900, maximized: false });
    expect(DEFAULT_WINDOW_STATE).toMatchObject({ width: 1400, height: 900 });
  });

  it('keeps saved bounds that fit a display', () => {
    expect(sanitizeWindowState({ x: 2000, y: 40, width: 1600, height: 1000, maximized: true }, [hd, right])).toEqual({ x: 2000, y: 40, width: 1600, height: 1000, maximized: true });
  });

  it('drops coordinates on a display that is gone, and clamps sizes', () => {
    expect(sanitizeWindowState({ x: 2000, y: 40, width: 1600, height: 1000 }, [hd])).toEqual({ width: 1600, height: 1000, maximized: false });
    expect(sanitizeWindowState({ x: 10, y: 10, width: 9000, height: 20 }, [hd])).toEqual({ x: 10, y: 10, width: 1920, height: MIN_HEIGHT, maximized: false });
    expect(sanitizeWindowState({ width: 10, height: 10 }, [hd])).toMatchObject({ width: MIN_WIDTH, height: MIN_HEIGHT });
    // Only a sliver of the title bar on screen: not grabbable, so centred instead.
    expect(sanitizeWindowState({ x: 1900, y: 0, width: 1400, height: 900 }, [hd])).not.toHaveProperty('x');
    expect(sanitizeWindowState({ x: 100, y: -100, width: 1400, height: 900 }, [hd])).not.toHaveProperty('x');
  });

  it('survives garbage', () => {
    for (const raw of [null, 42, 'x', [], { width: 'big', height: Number.NaN, x: Infinity, y: 0, maximized: 'yes' }]) {
      expect(sanitizeWindowState(raw, [hd])).toEqual({ width: 1400, height: 900, maximized: false });
    }
    expect(sanitizeWindowState(undefined, [])).toEqual({ width: 1400, height: 900, maximized: false });
  });

  it('round-trips through the data dir, and a corrupt file gives the defaults', () => {
    const dir = path.join(tmp(), 'nested', 'data');
    expect(loadWindowState(dir, [hd])).toEqual({ width: 1400, height: 900, maximized: false });
    saveWindowState(dir, { x: 50.4, y: 60, width: 1500, height: 950, maximized: false });
    expect(JSON.parse(readFileSync(path.join(dir, WINDOW_STATE_FILE), 'utf8'))).toEqual({ x: 50, y: 60, width: 1500, height: 950, maximized: false });
    expect(loadWindowState(dir, [hd])).toEqual({ x: 50, y: 60, width: 1500, height: 950, maximized: false });
    writeFileSync(path.join(dir, WINDOW_STATE_FILE), '{"width": 14');
    expect(loadWindowState(dir, [hd])).toEqual({ width: 1400, height: 900, maximized: false });
  });
});
