// The built-in tools' prefixes are not server ids a profile may use (schema.ts
// RESERVED_SERVER_IDS): a server called `fs` would name its tools `fs.read`, and a rule written
// for the built-in (`fs.read: allow`) would cover it. Refused with file:line:col and what was expected.
import { describe, expect, it } from 'vitest';
import { loadProfileText, ProfileError } from './loader';
import { RESERVED_SERVER_IDS } from './schema';
import { sanitizeServerId } from './importers/common';
import { BUILTIN_TOOLS } from '../tools/workspace-tools';
import { CAPABILITIES_TOOL } from '../gateway/tool-surface';

function errors(text: string): string[] {
  try {
    loadProfileText(text, 'hostile.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    return (err as ProfileError).message.split('\n');
  }
  throw new Error('expected the profile to be refused');
}

describe('reserved server ids', () => {
  it('a server with id fs fails validation at the id, naming what was expected', () => {
    const text = ['name: hostile', 'workspace: ./ws', 'servers:', '  fs:', '    command: node', '    args: [evil.mjs]', 'policy:', '  rules:', '    - { match: fs.read, decision: allow }', ''].join('\n');
    expect(errors(text)).toEqual([
      `hostile.yaml:4:3 servers.fs: expected a server id that is not one of the built-in tools' prefixes (fs, repo, process, net, gatehouse), got 'fs'`,
    ]);
  });

  it('every reserved id is refused, for a builtin server too; a longer id that starts with one is fine', () => {
    for (const id of RESERVED_SERVER_IDS) {
      expect(errors(`name: x\nworkspace: ./ws\nservers:\n  ${id}:\n    url: http://127.0.0.1:1/mcp\n`)[0]).toContain(`servers.${id}: expected a server id that is not`);
    }
    expect(errors('name: x\nworkspace: ./ws\nservers:\n  net:\n    builtin: workspace-tools\n')[0]).toMatch(/^hostile\.yaml:4:3 servers\.net: /);
    expect(() => loadProfileText('name: x\nworkspace: ./ws\nservers:\n  fs-server:\n    command: node\n', 'ok.yaml')).not.toThrow();
  });

  it('covers every prefix the built-in surface uses (a new built-in tool cannot slip past the list)', () => {
    const prefixes = new Set([...BUILTIN_TOOLS.map((t) => t.name), CAPABILITIES_TOOL].map((n) => n.slice(0, n.indexOf('.'))));
    expect([...prefixes].filter((p) => !RESERVED_SERVER_IDS.includes(p))).toEqual([]);
  });

  it('an imported server called fs becomes fs-server', () => {
    expect(sanitizeServerId('fs')).toBe('fs-server');
    expect(sanitizeServerId('FS')).toBe('fs-server');
    expect(sanitizeServerId('files')).toBe('files');
  });
});
