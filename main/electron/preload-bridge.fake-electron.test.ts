// The preload against a fake of electron's contextBridge/ipcRenderer (the real ones need an
// Electron binary, which this machine does not have): the bridge has exactly one function per
// command and event of the contract, on the channels main/electron/ registers, strips the IPC
// event, unsubscribes exactly its own listener and never exposes ipcRenderer.
import { EventEmitter } from 'node:events';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { commands, events, HOST_API_BRIDGE_VERSION, type HostApiBridge } from '../../common/host-api';
import { commandChannel, eventChannel } from './channels';

const fake = vi.hoisted(() => {
  const exposed: Record<string, unknown> = {};
  return { exposed, invoke: undefined as unknown as (channel: string, input: unknown) => Promise<unknown> };
});
const emitter = new EventEmitter();

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (fake.exposed[key] = api) },
  ipcRenderer: {
    invoke: (channel: string, input: unknown) => fake.invoke(channel, input),
    on: (channel: string, l: (...a: unknown[]) => void) => emitter.on(channel, l),
    removeListener: (channel: string, l: (...a: unknown[]) => void) => emitter.removeListener(channel, l),
  },
}));

let bridge: HostApiBridge;
beforeAll(async () => {
  await import('../../preload/index');
  bridge = fake.exposed.gatehouse as HostApiBridge;
});

describe('preload bridge (fake electron)', () => {
  it('exposes exactly window.gatehouse, shaped as HostApiBridge', () => {
    expect(Object.keys(fake.exposed)).toEqual(['gatehouse']);
    expect(Object.keys(bridge).sort()).toEqual(['commands', 'events', 'version']);
    expect(bridge.version).toBe(HOST_API_BRIDGE_VERSION);
    expect(Object.keys(bridge.commands).sort()).toEqual(Object.keys(commands).sort());
    expect(Object.keys(bridge.events).sort()).toEqual(Object.keys(events).sort());
    for (const f of [...Object.values(bridge.commands), ...Object.values(bridge.events)]) expect(typeof f).toBe('function');
    // Nothing generic and no ipcRenderer anywhere in it.
    const json = JSON.stringify(bridge, (_k, v: unknown) => (typeof v === 'function' ? `fn:${(v as { name: string }).name}` : v));
    expect(json).not.toMatch(/invoke|ipcRenderer|send|removeListener/);
    expect(Object.isFrozen(bridge) && Object.isFrozen(bridge.commands) && Object.isFrozen(bridge.events)).toBe(true);
  });

  it('calls each command on the channel main registers and unwraps the result', async () => {
    const seen: Array<[string, unknown]> = [];
    fake.invoke = async (channel, input) => {
      seen.push([channel, input]);
      return channel.endsWith('profiles:list') ? { ok: false, error: 'profile demo.yaml:3:1 servers: expected a map' } : { ok: true, output: { echoed: input } };
    };
    await expect(bridge.commands['host:info']({})).resolves.toEqual({ echoed: {} });
    await expect(bridge.commands['profiles:launch']({ ref: 'demo' })).resolves.toEqual({ echoed: { ref: 'demo' } });
    await expect(bridge.commands['profiles:list']({})).rejects.toThrow(/^profile demo.yaml:3:1 servers: expected a map$/);
    expect(seen.map(([c]) => c)).toEqual([commandChannel('host:info'), commandChannel('profiles:launch'), commandChannel('profiles:list')]);
    for (const name of Object.keys(commands) as Array<keyof typeof commands>) {
      seen.length = 0;
      await (bridge.commands[name] as (i: unknown) => Promise<unknown>)({}).catch(() => {});
      expect(seen[0]?.[0]).toBe(commandChannel(name));
    }
    fake.invoke = async () => undefined;
    await expect(bridge.commands['host:info']({})).rejects.toThrow(/no answer from the host/);
  });

  it('subscriptions strip the IPC event and remove exactly their own listener', () => {
    const a: unknown[] = [];
    const b: unknown[] = [];
    const channel = eventChannel('approval:requested');
    const offA = bridge.events['approval:requested']((p) => a.push(p));
    const offB = bridge.events['approval:requested']((p) => b.push(p));
    expect(emitter.listenerCount(channel)).toBe(2);
    const ipcEvent = { sender: { send() {} }, ports: [] };
    emitter.emit(channel, ipcEvent, { request: { id: 'r1' } });
    expect(a).toEqual([{ request: { id: 'r1' } }]);
    expect(b).toEqual([{ request: { id: 'r1' } }]);
    offA();
    offA(); // idempotent: does not remove B's listener
    expect(emitter.listenerCount(channel)).toBe(1);
    emitter.emit(channel, ipcEvent, { request: { id: 'r2' } });
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(2);
    offB();
    expect(emitter.listenerCount(channel)).toBe(0);
    for (const name of Object.keys(events) as Array<keyof typeof events>) {
      const off = (bridge.events[name] as (l: () => void) => () => void)(() => {});
      expect(emitter.listenerCount(eventChannel(name)), name).toBe(1);
      off();
    }
    expect(() => (bridge.events['traffic:batch'] as unknown as (l: unknown) => void)('nope')).toThrow(TypeError);
  });
});
