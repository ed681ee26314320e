// What an agent sends on stdio (docs/gateway.md "Messages (both sides, stdio and HTTP)"): ids JSON cannot carry exactly, nesting past the
// limit, an absurd Content-Length. Each request gets exactly one answer that says what was
// wrong, and the gateway keeps serving the session. Real gateway process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultRig, profileYaml, useCliBundle } from './harness';

// Registered first, so the bundle exists before the rig below starts.
const cli = useCliBundle();
let rig: FaultRig;
beforeAll(async () => {
  rig = new FaultRig(cli(), profileYaml({ args: ['--mode', 'ok'] }));
  await rig.initialize();
}, 60_000);
afterAll(() => rig?.cleanup());

const answerText = (pattern: RegExp) => rig.peer.waitFor((f) => pattern.test(f.text), `a frame matching ${pattern}`, 20_000);

describe('agent input on stdio', { timeout: 60_000 }, () => {
  it.each(['9007199254740993', '1e30', '-9007199254740993'])('id %s gets -32600, answered with that very id', async (rawId) => {
    rig.peer.sendText(`{"jsonrpc":"2.0","id":${rawId},"method":"tools/call","params":{"name":"good_echo","arguments":{"text":"x"}}}`);
    const frame = await answerText(new RegExp(`"id":${rawId.replace(/[-+.]/g, '\\$&')},`));
    expect(frame.text).toMatch(/"code":-32600/);
    expect(frame.text).toMatch(/cannot be carried exactly/);
  });

  it('a large id within range is kept exactly', async () => {
    rig.peer.send({ jsonrpc: '2.0', id: 9007199254740991, method: 'ping' });
    const frame = await answerText(/"id":9007199254740991\b/);
    expect(frame.message.result).toEqual({});
  });

  it('arguments nested 10,000 deep: -32600 with the id, no stack overflow, the session goes on', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    rig.peer.sendText(`{"jsonrpc":"2.0","id":"deep-7","method":"tools/call","params":{"name":"good_echo","arguments":{"text":${deep}}}}`);
    const frame = await answerText(/"id":"deep-7"/);
    expect(frame.text).toMatch(/-32600.*nested deeper than 128 levels/);
    expect(FaultRig.text(await rig.call('good_echo', { text: 'still here' }))).toBe('echo: still here');
  });

  it('an absurd Content-Length is answered and the reader resyncs on the next message', async () => {
    rig.peer.child.stdin.write('Content-Length: 999999999999999\r\n\r\n');
    await answerText(/out of sync/);
    expect(FaultRig.text(await rig.call('good_echo', { text: 'resynced' }))).toBe('echo: resynced');
  });

  it('every request on this session got exactly one answer', () => {
    const counts = rig.answerCounts();
    expect(counts).toEqual({ missing: [], duplicated: [] });
  });
});
