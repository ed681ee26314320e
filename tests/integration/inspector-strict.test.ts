// The built-in tools' schemas pass the MCP Inspector CLI's `--strict` portability check with 0
// findings (it flags what a single-`type` client dialect cannot take: `type` arrays, keyword-less
// schemas), served directly and through the gateway. The Inspector needs Node 22, so it lives in
// tools/inspector/ with its own lockfile (scripts/ensure-tools-package.mjs installs it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureToolsPackage } from '../support/tools-package';
import { repoRoot } from '../support/supervisor';
import { tempDir, writeProfile } from '../support/temp';

const inspector = ensureToolsPackage('inspector');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runInspector(target: string[], home: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    // HOME: the Inspector keeps a catalog under ~/.mcp-inspector; never the user's.
    const child = spawn(inspector.node!, [inspector.cli!, '--method', 'tools/list', '--strict', '--format', 'json', ...target], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Envelope {
  result: { tools: { name: string }[] };
  schemaFindings?: { toolName: string; findings: { rule: string; severity: string; path: string }[] }[];
}

function parse(run: Run): Envelope {
  const line = run.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Envelope;
  } catch {
    throw new Error(`the Inspector printed no JSON (exit ${run.code}): ${run.stderr.slice(0, 2000)}`);
  }
}

let tmp: ReturnType<typeof tempDir>;

beforeAll(() => {
  tmp = tempDir('gatehouse-inspector-');
  writeFileSync(path.join(tmp.dir, 'hello.txt'), 'hi\n');
});
afterAll(() => tmp?.cleanup());

describe.skipIf(inspector.skip)('MCP Inspector --strict', () => {
  beforeAll(() => {
    if (!inspector.ok) throw new Error(`the Inspector is not usable: ${inspector.reason}. Install it with: ${inspector.fix}`);
  });

  it('finds nothing to flag in the built-in tools server', async () => {
    const run = await runInspector([process.execPath, path.join(repoRoot, 'out', 'tools-server.mjs'), '--workspace', tmp.dir], tmp.dir);
    const env = parse(run);
    expect(env.result.tools.map((t) => t.name).sort()).toEqual(['fs.read', 'fs.write', 'net.http_request', 'process.exec', 'repo.apply_patch', 'repo.validate_change_set']);
    expect(env.schemaFindings ?? [], JSON.stringify(env.schemaFindings, null, 2)).toEqual([]);
    expect(run.stderr).not.toMatch(/Warning:|warnings? across|portability/);
    expect(run.code).toBe(0);
  }, 120_000);

  it('finds nothing to flag in the gateway in front of them (with the capabilities tool)', async () => {
    const file = writeProfile(tmp.dir, 'name: strict\nworkspace: ./ws\nservers:\n  workspace:\n    builtin: workspace-tools\n', 'strict.yaml');
    const run = await runInspector(
      [process.execPath, path.join(repoRoot, 'bin', 'gatehouse'), 'gateway', '--profile', file, '--no-audit', '--quiet', '--data-dir', path.join(tmp.dir, 'data')],
      tmp.dir,
    );
    const env = parse(run);
    expect(env.result.tools.map((t) => t.name)).toContain('gatehouse_capabilities');
    expect(env.result.tools.map((t) => t.name)).toContain('read_file');
    expect(env.schemaFindings ?? [], JSON.stringify(env.schemaFindings, null, 2)).toEqual([]);
    expect(run.stderr).not.toMatch(/Warning:|warnings? across/);
    expect(run.code).toBe(0);
  }, 120_000);

  it('does flag a server with a type array and a keyword-less schema (the control)', async () => {
    const run = await runInspector([process.execPath, path.join(repoRoot, 'tests', 'fixtures', 'servers', 'unportable-schema-server.mjs')], tmp.dir);
    const env = parse(run);
    expect(env.result.tools.map((t) => t.name)).toEqual(['lookup']);
    const rules = (env.schemaFindings ?? []).flatMap((t) => t.findings.map((f) => `${t.toolName} ${f.rule} ${f.path}`));
    expect(rules).toEqual(['lookup type-union properties.value', 'lookup untyped-schema properties.extra']);
    expect(run.stderr).toMatch(/2 warnings/);
  }, 120_000);
});
