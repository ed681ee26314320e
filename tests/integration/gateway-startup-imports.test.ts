// What a gateway run loads before its first message (docs/gateway.md "Performance"): the
// packages its static import graph reaches, read from esbuild's metafile of the CLI with the
// same settings and code splitting as scripts/build.mjs. The SDK v2 client (with its own
// protocol core) is for new-era HTTP upstreams and loads on the first probe; a stdio-only
// gateway that imported it at start carried a second copy of the SDK in its memory. The same for
// the OpenTelemetry SDK (a launch with a collector) and secretlint (a text that may hold a credential).
import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostBundleOptions } from '../../scripts/esbuild-options.mjs';
import { repoRoot } from '../support/supervisor';

const outdir = mkdtempSync(path.join(os.tmpdir(), 'gh-startup-imports-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** External packages reached from `entry` through static imports only (not `import()`). */
function staticPackages(): { packages: Set<string>; lazy: Set<string> } {
  const result = buildSync({
    ...hostBundleOptions,
    absWorkingDir: repoRoot,
    entryPoints: { gateway: 'main/cli/gateway-command.ts' },
    outdir,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const outputs = result.metafile!.outputs;
  const key = (p: string) => path.relative(repoRoot, path.resolve(repoRoot, p));
  const byPath = new Map(Object.entries(outputs).map(([p, o]) => [key(p), o]));
  const entry = [...byPath.keys()].find((p) => p.endsWith('gateway.mjs'))!;
  const packages = new Set<string>();
  const lazy = new Set<string>();
  const seen = new Set<string>();
  const walk = (p: string): void => {
    if (seen.has(p)) return;
    seen.add(p);
    for (const imp of byPath.get(p)?.imports ?? []) {
      if (imp.external) (imp.kind === 'dynamic-import' ? lazy : packages).add(imp.path);
      else if (imp.kind === 'import-statement') walk(key(imp.path));
      else if (imp.kind === 'dynamic-import') for (const x of byPath.get(key(imp.path))?.imports ?? []) if (x.external) lazy.add(x.path);
    }
  };
  walk(entry);
  return { packages, lazy };
}

describe('gateway start-up imports', () => {
  it('loads the SDK v2 client only when an HTTP upstream is probed, not at start', () => {
    const { packages, lazy } = staticPackages();
    // The probe that the graph is read at all: the v1 SDK and SQLite are on the start path.
    expect(packages).toContain('@modelcontextprotocol/sdk/types.js');
    expect(packages).toContain('better-sqlite3');
    expect([...packages].filter((p) => p.startsWith('@modelcontextprotocol/client') || p.startsWith('@modelcontextprotocol/core'))).toEqual([]);
    expect(lazy).toContain('@modelcontextprotocol/client');
  });

  it('loads the OpenTelemetry SDK only for a launch with a collector, and secretlint only for a text the prefilter lets through', () => {
    const { packages, lazy } = staticPackages();
    expect([...packages].filter((p) => p.startsWith('@opentelemetry/') || p.startsWith('@secretlint/'))).toEqual([]);
    expect(lazy).toContain('@opentelemetry/sdk-trace-base');
    expect(lazy).toContain('@secretlint/core');
  });
});
