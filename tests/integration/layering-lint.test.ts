// The layering rule (scripts/eslint-layering.mjs) against probe files written into the real
// folders and linted with the project's own eslint.config.js: every forbidden import form must be
// reported, each at its own line, and the allowed forms beside them must not be.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const written: string[] = [];

function probe(folder: string, ext: string, lines: string[]): string {
  // A folder of its own inside the layer (the rule judges by path): removed whatever happens.
  const dir = mkdtempSync(path.join(ROOT, folder, '.layering-probe-'));
  const file = path.join(dir, `probe.${ext}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  written.push(dir);
  return file;
}

async function layeringErrors(file: string): Promise<number[]> {
  const eslint = new ESLint({ cwd: ROOT, ignore: false });
  const [result] = await eslint.lintFiles([file]);
  return result!.messages.filter((m) => m.ruleId === 'gatehouse/layering').map((m) => m.line);
}

afterAll(() => {
  for (const dir of written) rmSync(dir, { recursive: true, force: true });
});

describe('layering lint', () => {
  it('reports every forbidden import form from the core: static, export-from, import(), require, import = require, import type, electron subpaths', async () => {
    const file = probe('main/gateway', 'ts', [
      "import { parseCommandArgs } from '../../cli/args';", // 1 core → shell, static
      "export { Host } from '../../host';", // 2 export-from the composition root
      "export * from '../../web/server';", // 3 export * from a shell
      "export const later = () => import('../../api/dispatcher');", // 4 import()
      "export const e = require('electron/main');", // 5 require of an electron subpath
      "import type { BrowserWindow } from 'electron';", // 6 a type import of electron
      "import cli = require('../../cli/index');", // 7 import = require
      "export type H = typeof import('../../host');", // 8 import type of a path
      "import { appRoot } from '../../paths';", // 9 allowed: a core module
      "export const uses = [parseCommandArgs, cli, appRoot];",
    ]);
    expect(await layeringErrors(file)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  }, 120_000);

  it('refuses a back edge between two folders of main/ in every form, type-only included, and allows the edges down the declared order', async () => {
    // main/sandbox/ is below main/supervisor/ (docs/architecture.md "Layer order"); the pair
    // imported each other until shell-path.ts moved down into sandbox/.
    const file = probe('main/sandbox', 'ts', [
      "import { resolveSearchPath } from '../../supervisor/supervisor';", // 1 back edge, static
      "import type { ServerStatus } from '../../supervisor/types';", // 2 back edge, type-only
      "export { CommandRunner } from '../../gateway/gateway';", // 3 back edge, export-from
      "export const later = () => import('../../trust/pin-store');", // 4 back edge, import()
      "export type G = typeof import('../../audit/store');", // 5 back edge, import type of a path
      "export const r = require('../../agents/presets');", // 6 back edge, require
      "import { resolveCommand } from '../shell-path';", // 7 allowed: its own folder
      "import { appRoot } from '../../paths';", // 8 allowed: the base layer
      "import { isInside } from '../../tools/inside';", // 9 allowed: a folder below
      "export type { ServerStatus };",
      'export const uses = [resolveSearchPath, resolveCommand, appRoot, isInside];',
    ]);
    expect(await layeringErrors(file)).toEqual([1, 2, 3, 4, 5, 6]);
    // The same edge the other way round is the declared direction.
    const up = probe('main/supervisor', 'ts', [
      "import type { SandboxSpec } from '../../sandbox/types';",
      "import { resolveCommand } from '../../sandbox/shell-path';",
      'export type S = SandboxSpec;',
      'export const uses = [resolveCommand];',
    ]);
    expect(await layeringErrors(up)).toEqual([]);
  }, 120_000);

  it('refuses a folder of main/ that has no place in the layer order', async () => {
    const file = probe('main/gateway', 'ts', ["import { x } from '../../undeclared/thing';", 'export const uses = [x];']);
    expect(await layeringErrors(file)).toEqual([1]);
  }, 120_000);

  it('keeps renderer/ off main/, preload/ and Node built-ins, and common/ on zod alone', async () => {
    const renderer = probe('renderer/lib', 'ts', [
      "import { appRoot } from '../../../main/paths';",
      "import fs from 'node:fs';",
      "const p = import('path');",
      "import { z } from 'zod';",
      'export const uses = [appRoot, fs, p, z];',
    ]);
    expect(await layeringErrors(renderer)).toEqual([1, 2, 3]);
    const common = probe('common', 'ts', ["import YAML from 'yaml';", "import { z } from 'zod';", "import { HostApi } from '../host-api';", 'export const uses = [YAML, z, HostApi];']);
    expect(await layeringErrors(common)).toEqual([1]);
  }, 120_000);
});
