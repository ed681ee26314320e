import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { bundledBinEntry } from './bundled-bins';

describe('bundledBinEntry', () => {
  it("finds the entry scripts of the servers Gatehouse ships (the demo's, without node_modules/.bin)", () => {
    for (const bin of ['mcp-server-filesystem', 'mcp-server-memory']) {
      const entry = bundledBinEntry(bin);
      expect(entry, bin).toMatch(/node_modules\/@modelcontextprotocol\/server-[a-z]+\/dist\/index\.js$/);
      expect(existsSync(entry!)).toBe(true);
    }
  });
  it('offers nothing for paths, unknown names or dev-only packages', () => {
    expect(bundledBinEntry('./mcp-server-memory')).toBeUndefined();
    expect(bundledBinEntry('no-such-server')).toBeUndefined();
    expect(bundledBinEntry('mcp-server-everything')).toBeUndefined(); // a devDependency: not shipped
  });
});
