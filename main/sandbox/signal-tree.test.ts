import { describe, expect, it } from 'vitest';
import { serverExit } from './signal-tree';

describe('serverExit', () => {
  it("reads a wrapper's 128 + n as the server's death by signal n", () => {
    expect(serverExit('bubblewrap', 137, null)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(serverExit('container', 143, null)).toEqual({ code: null, signal: 'SIGTERM' });
  });
  it('leaves plain codes, real signals and unwrapped kinds alone', () => {
    expect(serverExit('bubblewrap', 1, null)).toEqual({ code: 1, signal: null });
    expect(serverExit('bubblewrap', 128, null)).toEqual({ code: 128, signal: null });
    expect(serverExit('bubblewrap', 255, null)).toEqual({ code: 255, signal: null });
    expect(serverExit('bubblewrap', null, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(serverExit('landlock', 137, null)).toEqual({ code: 137, signal: null });
    expect(serverExit('off', 137, null)).toEqual({ code: 137, signal: null });
  });
});
