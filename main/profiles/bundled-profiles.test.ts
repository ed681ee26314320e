// The profiles and the JSON Schema that ship in workspace-profiles/ stay valid and current.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledProfilesDir } from '../paths';
import { PROFILE_SCHEMA_FILE, profileJsonSchemaText } from './json-schema';
import { loadProfileFile } from './loader';
import { listProfiles } from './registry';
import { resolveProfile } from './resolve';

const dir = bundledProfilesDir();

describe('workspace-profiles/', () => {
  it('profile.schema.json is what the zod schema generates now (run node scripts/gen-profile-schema.mjs)', () => {
    expect(fs.readFileSync(path.join(dir, PROFILE_SCHEMA_FILE), 'utf8')).toBe(profileJsonSchemaText());
    // `workspace:` is optional (it defaults), and the schema an editor uses says so.
    const schema = JSON.parse(profileJsonSchemaText()) as { required?: string[]; properties: { workspace: { description: string } } };
    expect(schema.required ?? []).not.toContain('workspace');
    expect(schema.properties.workspace.description).toMatch(/built-in tools .* must name it/);
  });

  it('the demo resolves offline with nothing but a data dir', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-profiles-demo-'));
    try {
      const p = resolveProfile(loadProfileFile(path.join(dir, 'demo.yaml')), { dataDir: data, env: {} });
      expect(p.name).toBe('demo');
      expect(p.workspace).toBe(path.join(dir, 'demo-workspace'));
      expect(p.servers.map((s) => [s.id, s.kind])).toEqual([
        ['workspace', 'builtin'],
        ['files', 'stdio'],
        ['memory', 'stdio'],
      ]);
      expect(p.servers[1]).toMatchObject({ command: 'mcp-server-filesystem', args: [p.workspace] });
      expect(p.servers[2]).toMatchObject({ command: 'mcp-server-memory', env: { MEMORY_FILE_PATH: path.join(data, 'memory', 'demo-memory.jsonl') } });
      // Its commands are real dependencies, found in Gatehouse's own node_modules/.bin.
      for (const bin of ['mcp-server-filesystem', 'mcp-server-memory']) {
        expect(fs.existsSync(path.join(dir, '..', 'node_modules', '.bin', bin))).toBe(true);
      }
      expect(fs.existsSync(path.join(p.workspace, 'README.md'))).toBe(true);
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });

  it('every example validates and resolves once its secrets exist', () => {
    const examples = fs.readdirSync(path.join(dir, 'examples')).filter((f) => f.endsWith('.yaml'));
    expect(examples.length).toBeGreaterThan(0);
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-profiles-examples-'));
    try {
      for (const f of examples) {
        const loaded = loadProfileFile(path.join(dir, 'examples', f));
        const p = resolveProfile(loaded, { dataDir: data, env: { DOCS_TOKEN: 'example-token' } });
        expect(p.redactor.redactString('example-token')).toBe('«secret:DOCS_TOKEN»');
      }
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });

  it('every profile starts with the yaml-language-server schema line', () => {
    const files = [
      ...fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => [path.join(dir, f), './profile.schema.json']),
      ...fs.readdirSync(path.join(dir, 'examples')).filter((f) => f.endsWith('.yaml')).map((f) => [path.join(dir, 'examples', f), '../profile.schema.json']),
    ];
    for (const [file, ref] of files) {
      expect(fs.readFileSync(file!, 'utf8').split('\n')[0]).toBe(`# yaml-language-server: $schema=${ref}`);
    }
  });

  it('listProfiles over the bundled folder finds the demo, valid', () => {
    const demo = listProfiles([dir]).find((e) => e.name === 'demo');
    expect(demo).toMatchObject({ servers: ['workspace', 'files', 'memory'], toolSurface: 'friendly', policyDefault: 'approve' });
    expect(demo?.error).toBeUndefined();
  });
});
