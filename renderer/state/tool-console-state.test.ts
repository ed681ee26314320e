import { describe, expect, it } from 'vitest';
import { ToolConsoleState } from './tool-console-state';
import { filterTools } from '../views/tool-console/tool-console-view';

class MemoryStorage {
  data = new Map<string, string>();
  getItem(k: string) {
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.data.set(k, v);
  }
}

describe('tool console state', () => {
  it('keeps a pending call and delivers its result after the view is gone', async () => {
    const state = new ToolConsoleState(new MemoryStorage());
    let answer: (v: unknown) => void = () => {};
    const api = { call: () => new Promise((resolve) => (answer = resolve)) } as never;
    state.patch('L', 'write_file', { value: { path: 'a.txt' } });
    const done = state.call(api, 'L', 'write_file', { path: 'a.txt' });
    expect(state.draft('L', 'write_file')?.calling).toBe(true);
    answer({ result: { content: [] }, exchange: 'ui#1' });
    await done;
    const d = state.draft('L', 'write_file')!;
    expect(d.calling).toBe(false);
    expect(d.result?.out?.exchange).toBe('ui#1');
    expect(d.value).toEqual({ path: 'a.txt' });
  });

  it("adopts the host's record of a call: pending after a reload, then its result, never an older call's", () => {
    const state = new ToolConsoleState(new MemoryStorage());
    const base = { launchId: 'L', tool: 'write_file', args: { path: 'b.txt' } };
    state.adopt({ ...base, exchange: 'ui#2', startedAt: 2000 });
    expect(state.draft('L', 'write_file')?.calling).toBe(true);
    // The record of an earlier call, answered, arrives late: it does not replace the pending one.
    state.adopt({ ...base, exchange: 'ui#1', startedAt: 1000, output: { error: 'old', exchange: 'ui#1' }, ms: 5 });
    expect(state.draft('L', 'write_file')?.calling).toBe(true);
    expect(state.draft('L', 'write_file')?.result).toBeUndefined();
    state.adopt({ ...base, exchange: 'ui#2', startedAt: 2000, output: { error: 'denied by a person', exchange: 'ui#2' }, ms: 40 });
    const d = state.draft('L', 'write_file')!;
    expect(d.calling).toBe(false);
    expect(d.result).toEqual({ out: { error: 'denied by a person', exchange: 'ui#2' }, ms: 40, args: { path: 'b.txt' } });
    // Another tool's draft is untouched.
    expect(state.draft('L', 'read_file')).toBeUndefined();
  });

  it('keeps the arguments of a call at once, not after the save delay (a reload right after Call keeps them)', () => {
    const storage = new MemoryStorage();
    const a = new ToolConsoleState(storage);
    a.patch('L', 'write_file', { raw: '{"file_path":"x"}' });
    void a.call({ call: () => new Promise(() => {}) } as never, 'L', 'write_file', { file_path: 'x' });
    const b = new ToolConsoleState(storage); // no wait: as a reload would
    expect(b.draft('L', 'write_file')?.raw).toBe('{"file_path":"x"}');
  });

  it('restores drafts (not results) from storage', async () => {
    const storage = new MemoryStorage();
    const a = new ToolConsoleState(storage);
    a.select('L', 'read_file');
    a.patch('L', 'read_file', { value: { file_path: 'x' }, result: { ms: 1, args: {} } });
    await new Promise((r) => setTimeout(r, 300));
    const b = new ToolConsoleState(storage);
    expect(b.store.get().selected).toEqual({ L: 'read_file' });
    expect(b.draft('L', 'read_file')).toEqual({ value: { file_path: 'x' } });
  });

  it('filters by name, canonical name and title, never by description', () => {
    const tools = [
      { name: 'create_directory', canonical: 'files.create_directory', description: 'Fails if it already exists' },
      { name: 'read_file', canonical: 'fs.read', title: 'Read a file' },
      { name: 'open_nodes', canonical: 'memory.open_nodes', title: 'Reader of nodes' },
    ];
    expect(filterTools(tools, 'read').map((t) => t.name)).toEqual(['read_file', 'open_nodes']);
    expect(filterTools(tools, 'fs.').map((t) => t.name)).toEqual(['read_file']);
    expect(filterTools(tools, '').length).toBe(3);
  });
});
