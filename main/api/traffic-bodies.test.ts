// The host side of bodies for the Traffic view: a real tap ring and a real SQLite audit store.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestStore } from '../audit/test-support';
import { TrafficTap } from '../protocol/traffic-tap';
import type { TrafficEvent } from '../protocol/types';
import { searchTrafficBodies, trafficBodies } from './traffic-bodies';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(capacity: number) {
  const d = mkdtempSync(path.join(os.tmpdir(), 'gh-bodies-'));
  dirs.push(d);
  const { store } = openTestStore(d);
  const tap = new TrafficTap({ capacity });
  // What the host does: every tap event also goes to the audit writer.
  const publish = (i: number, text: string): TrafficEvent => {
    const ev = tap.publish({
      ts: 1_700_000_000_000 + i,
      session: 'L1',
      server: 'files',
      direction: 'server_to_gateway',
      kind: 'response',
      id: i,
      bytes: 50,
      message: { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text }] } },
    });
    store.writer.traffic(ev);
    return ev;
  };
  return { tap, store, publish };
}

describe('traffic bodies', () => {
  it('gives a body from the ring, then from the audit store once the ring let it go, and says when neither has it', () => {
    const { tap, store, publish } = setup(3);
    const evs = Array.from({ length: 6 }, (_, i) => publish(i, `body ${i}`));
    const ref = (e: TrafficEvent) => ({ session: e.session, seq: e.seq, ts: e.ts });
    const out = trafficBodies({ tap, audit: store }, [ref(evs[0]!), ref(evs[5]!)]);
    expect(out).toEqual([
      { seq: evs[0]!.seq, found: true, message: evs[0]!.message }, // from SQLite
      { seq: evs[5]!.seq, found: true, message: evs[5]!.message }, // from the ring
    ]);
    // A seq from another launch, or another host run (same seq, other time), is not handed out.
    expect(trafficBodies({ tap, audit: store }, [{ ...ref(evs[0]!), session: 'L2' }, { ...ref(evs[5]!), ts: 1 }])).toEqual([
      { seq: evs[0]!.seq, found: false },
      { seq: evs[5]!.seq, found: false },
    ]);
    // Without an audit store, what the ring let go is gone.
    expect(trafficBodies({ tap, audit: undefined }, [ref(evs[0]!)])).toEqual([{ seq: evs[0]!.seq, found: false }]);
    store.close();
  });

  it('searches bodies in the ring and in the audit store since a time, case-insensitively', () => {
    const { tap, store, publish } = setup(3);
    const evs = [publish(0, 'a Needle here'), publish(1, 'hay'), publish(2, 'hay'), publish(3, 'hay'), publish(4, 'NEEDLE again')];
    expect(searchTrafficBodies({ tap, audit: store }, { text: 'needle', since: evs[0]!.ts })).toEqual({ seqs: [evs[0]!.seq, evs[4]!.seq], complete: true });
    expect(searchTrafficBodies({ tap, audit: store }, { text: 'needle', since: evs[1]!.ts })).toEqual({ seqs: [evs[4]!.seq], complete: true });
    expect(searchTrafficBodies({ tap, audit: store }, { text: 'needle', since: evs[0]!.ts, sessions: ['L2'] }).seqs).toEqual([]);
    // No audit store: the ring alone, and the answer says it may have missed older rows.
    expect(searchTrafficBodies({ tap, audit: undefined }, { text: 'needle', since: evs[0]!.ts })).toEqual({ seqs: [evs[4]!.seq], complete: false });
    store.close();
  });
});
