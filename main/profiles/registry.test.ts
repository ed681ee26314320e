import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProfile, listProfiles } from './registry';

let root: string;
let bundled: string;
let user: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-profiles-registry-'));
  bundled = path.join(root, 'bundled');
  user = path.join(root, 'user');
  fs.mkdirSync(path.join(bundled, 'examples'), { recursive: true });
  fs.mkdirSync(user);
  fs.writeFileSync(path.join(bundled, 'demo.yaml'), 'name: demo\ndescription: bundled demo\nworkspace: .\nservers:\n  files: { command: x }\n  mem: { command: y }\n');
  fs.writeFileSync(path.join(bundled, 'other.yml'), 'workspace: .\ntool_surface: canonical\npolicy: { default: deny }\n');
  fs.writeFileSync(path.join(bundled, 'broken.yaml'), 'workspace: .\ntool_surface: nope\n');
  fs.writeFileSync(path.join(bundled, 'notes.txt'), 'not a profile');
  fs.writeFileSync(path.join(bundled, 'examples', 'deep.yaml'), 'workspace: .\n');
  fs.writeFileSync(path.join(user, 'my-demo.yaml'), 'name: demo\nworkspace: .\n');
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('listProfiles', () => {
  it('lists every profile file, invalid ones with their error, later folders shadowing earlier ones', () => {
    const entries = listProfiles([bundled, user, path.join(root, 'does-not-exist')]);
    expect(entries).toEqual([
      { name: 'broken', file: path.join(bundled, 'broken.yaml'), servers: [], error: expect.stringMatching(/broken\.yaml:2:15 tool_surface: expected one of friendly, canonical, both, lazy, got 'nope'/) },
      { name: 'demo', file: path.join(bundled, 'demo.yaml'), description: 'bundled demo', servers: ['files', 'mem'], toolSurface: 'friendly', policyDefault: 'approve', shadowed: true },
      { name: 'other', file: path.join(bundled, 'other.yml'), servers: [], toolSurface: 'canonical', policyDefault: 'deny' },
      { name: 'demo', file: path.join(user, 'my-demo.yaml'), servers: [], toolSurface: 'friendly', policyDefault: 'approve' },
    ]);
  });
});

describe('findProfile', () => {
  it('finds a name, the later folder winning a clash', () => {
    expect(findProfile('demo', [bundled, user])).toBe(path.join(user, 'my-demo.yaml'));
    expect(findProfile('demo', [bundled])).toBe(path.join(bundled, 'demo.yaml'));
    expect(findProfile('other', [bundled, user])).toBe(path.join(bundled, 'other.yml'));
  });

  it('finds an invalid profile by its file name, so loading it shows the errors', () => {
    expect(findProfile('broken', [bundled])).toBe(path.join(bundled, 'broken.yaml'));
  });

  it('takes a path as a path', () => {
    expect(findProfile(path.join(bundled, 'examples', 'deep.yaml'), [])).toBe(path.join(bundled, 'examples', 'deep.yaml'));
    expect(() => findProfile(path.join(root, 'nope.yaml'), [bundled])).toThrow(/profile file .*nope\.yaml does not exist/);
  });

  it('an unknown name lists the names available', () => {
    expect(() => findProfile('demoo', [bundled, user])).toThrow(`no profile named 'demoo' (available: broken, demo, other; searched ${bundled}, ${user})`);
    expect(() => findProfile('x', [path.join(root, 'empty')])).toThrow(/no profiles found in/);
  });
});
