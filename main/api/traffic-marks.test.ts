import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/support/temp';
import { TrafficMarks } from './traffic-marks';

const cleanups: Array<() => void> = [];
const tmp = () => {
  const t = tempDir('gatehouse-marks-');
  cleanups.push(t.cleanup);
  return t.dir;
};
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('traffic marks (pins and replay links kept by the host)', () => {
  it('survive a new instance on the same data dir (a restart), in a 0600 file', () => {
    const dir = tmp();
    const a = new TrafficMarks(dir);
    a.setPinned({ session: 'L1', seq: 7, ts: 100 }, true);
    a.setPinned({ session: 'L1', seq: 8, ts: 101 }, true);
    a.setPinned({ session: 'L1', seq: 8, ts: 101 }, false);
    a.linkReplay({ session: 'L1', exchange: 'ui-web#console-3', original: { session: 'L1', seq: 7, ts: 100 } });
    const b = new TrafficMarks(dir);
    expect(b.list()).toEqual({
      pins: [{ session: 'L1', seq: 7, ts: 100 }],
      replays: [{ session: 'L1', exchange: 'ui-web#console-3', original: { session: 'L1', seq: 7, ts: 100 } }],
    });
    const file = path.join(dir, 'ui', 'traffic-marks.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);
  });

  it('starts empty, with a message, when the file is damaged', () => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'ui'), { recursive: true });
    writeFileSync(path.join(dir, 'ui', 'traffic-marks.json'), '{"version": 2, "pins": "nope"}');
    const m = new TrafficMarks(dir);
    expect(m.list()).toEqual({ pins: [], replays: [] });
    m.setPinned({ session: 'L', seq: 1, ts: 1 }, true);
    expect(new TrafficMarks(dir).list().pins).toHaveLength(1);
  });

  it('stays bounded whatever a client sends', () => {
    const m = new TrafficMarks(tmp());
    for (let i = 0; i < 2100; i++) m.setPinned({ session: 'L', seq: i, ts: i }, true);
    const pins = m.list().pins;
    expect(pins).toHaveLength(2000);
    expect(pins[0]!.seq).toBe(100);
  });
});
