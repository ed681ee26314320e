// electron-builder.yml against electron-builder's own JSON schema (app-builder-lib/scheme.json,
// the one its CLI validates with), plus the settings that make the package safe: fuses, native
// modules unpacked and rebuilt, and everything the plain-node children load kept out of the asar.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { build } from 'esbuild';
import { minimatch } from 'minimatch';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const config = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as Record<string, any>;

function validator() {
  const schemaFile = require.resolve('app-builder-lib/scheme.json', { paths: [ROOT] });
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;
  // strict: false because the schema carries electron-builder's own doc keywords.
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

/** npm packages a script loads when it runs (its static import graph), by package name. */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const r = await build({ absWorkingDir: ROOT, entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent', outdir: 'unused' });
  const names = new Set<string>();
  for (const input of Object.keys(r.metafile.inputs)) {
    const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
    if (m) names.add(m[m.length - 1]!.slice('node_modules/'.length));
  }
  return [...names].sort();
}

const unpacked = (file: string) => (config.asarUnpack as string[]).some((glob) => minimatch(file, glob, { dot: true }));

describe('electron-builder.yml', () => {
  it('is valid under electron-builder’s own schema', () => {
    const validate = validator();
    const ok = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema check has teeth: a misspelt fuse or a wrong type is refused', () => {
    const validate = validator();
    expect(validate({ ...config, electronFuses: { ...config.electronFuses, runAsNod: false } })).toBe(false);
    expect(validate({ ...config, npmRebuild: 'yes' })).toBe(false);
    expect(validate({ ...config, asarUnpack: [42] })).toBe(false);
  });

  it('names the app and its Electron entry', () => {
    expect(config).toMatchObject({ appId: expect.stringMatching(/^[a-z0-9.-]+$/), productName: 'Gatehouse', directories: { output: 'dist' } });
    expect(config.extraMetadata.main).toBe('out/electron/main.cjs');
    // The files the app needs at run time are packaged (the entry, the preload, the renderer, the demo).
    const files = config.files as string[];
    for (const f of ['out/electron/main.cjs', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/tools-server.mjs', 'package.json', 'workspace-profiles/demo.yaml']) {
      const included = files.filter((g) => !g.startsWith('!')).some((g) => minimatch(f, g));
      const excluded = files.filter((g) => g.startsWith('!')).some((g) => minimatch(f, g.slice(1)));
      expect(included && !excluded, f).toBe(true);
    }
  });

  it('sets the security fuses', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).not.toBe(false);
  });

  it('unpacks and rebuilds native modules', () => {
    expect(config.npmRebuild).toBe(true);
    for (const f of [
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/better-sqlite3/lib/index.js',
      'node_modules/node-pty/build/Release/pty.node',
      'node_modules/node-pty/lib/index.js',
      'node_modules/some/nested/native.node',
    ]) {
      expect(unpacked(f), f).toBe(true);
    }
    // The app's own code stays inside the (integrity-checked) archive.
    for (const f of ['out/electron/main.cjs', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/cli.mjs']) expect(unpacked(f), f).toBe(false);
  });

  it('keeps out of the asar everything the plain-node children load', async () => {
    // Under Electron the built-in tools server and the demo's npm servers run on the user's
    // node (run-as-node is fused off), which cannot read app.asar.
    expect(unpacked('out/tools-server.mjs')).toBe(true);
    // The OS sandbox's in-sandbox forwarder (main/sandbox/sandbox-init.ts) runs on that node too.
    expect(unpacked('out/sandbox-init.mjs')).toBe(true);
    const entries = ['main/tools/server.ts'];
    for (const pkg of ['@modelcontextprotocol/server-filesystem', '@modelcontextprotocol/server-memory']) {
      const json = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
      const bin = typeof json.bin === 'string' ? json.bin : Object.values(json.bin)[0]!;
      entries.push(path.join('node_modules', pkg, bin));
    }
    const missing: string[] = [];
    for (const entry of entries) {
      for (const pkg of await packagesLoadedBy(entry)) {
        if (!unpacked(`node_modules/${pkg}/package.json`)) missing.push(`${pkg} (loaded by ${entry})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('builds the installers the issue asks for', () => {
    expect(config.linux.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(config.mac.target).toBe('dmg');
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.win.target).toBe('nsis');
  });

  it('deb and rpm depend on bubblewrap and keep electron-builder’s own dependencies', () => {
    expect(config.linux.target).toEqual(expect.arrayContaining(['deb', 'rpm']));
    // `depends` replaces the defaults: they must all still be there (app-builder-lib's own list).
    const FpmTarget = (require(require.resolve('app-builder-lib/out/targets/FpmTarget.js', { paths: [ROOT] })) as { default: { prototype: { getDefaultDepends(t: string): string[] } } }).default;
    for (const target of ['deb', 'rpm']) {
      const defaults = FpmTarget.prototype.getDefaultDepends(target);
      expect(defaults.length, target).toBeGreaterThan(0);
      expect(config[target].depends, target).toEqual([...defaults, 'bubblewrap']);
    }
  });

  it('deb and rpm install the AppArmor profile for bwrap where AppArmor is active, after electron-builder’s own steps', () => {
    for (const target of ['deb', 'rpm']) {
      expect(config[target].afterInstall, target).toBe('resources/linux/after-install.sh');
      expect(config[target].afterRemove, target).toBe('resources/linux/after-remove.sh');
    }
    // The profile text lies outside the asar, where the script reads it.
    expect(config.linux.extraResources).toEqual([{ from: 'resources/apparmor', to: 'apparmor' }]);
    const profile = readFileSync(path.join(ROOT, 'resources', 'apparmor', 'gatehouse-bwrap'), 'utf8');
    expect(profile).toMatch(/^profile gatehouse-bwrap @BWRAP@ flags=\(unconfined\) \{\n\s+userns,$/m);
    const templates = path.join(path.dirname(require.resolve('app-builder-lib/package.json', { paths: [ROOT] })), 'templates', 'linux');
    for (const [ours, theirs] of [['after-install.sh', 'after-install.tpl'], ['after-remove.sh', 'after-remove.tpl']] as const) {
      const script = readFileSync(path.join(ROOT, 'resources', 'linux', ours), 'utf8');
      // electron-builder expands ${name} in these scripts and refuses a name it does not define.
      expect(new Set([...script.matchAll(/\$\{([a-zA-Z]+)\}/g)].map((m) => m[1])), ours).toEqual(new Set(['executable', 'sanitizedProductName']));
      // Setting the script replaces electron-builder's: each of its lines is kept.
      const ownLines = script.split('\n');
      const missing = readFileSync(path.join(templates, theirs), 'utf8').split('\n').filter((l) => l.trim() && !ownLines.includes(l));
      expect(missing, ours).toEqual([]);
      expect(spawnSync('bash', ['-n', path.join(ROOT, 'resources', 'linux', ours)]).status, `bash -n ${ours}`).toBe(0);
    }
    const install = readFileSync(path.join(ROOT, 'resources', 'linux', 'after-install.sh'), 'utf8');
    const ours = install.slice(install.indexOf('# Gatehouse:'));
    expect(ours).toMatch(/^if apparmor_status --enabled/m);
    expect(ours).toContain("GATEHOUSE_BWRAP_TARGET='/etc/apparmor.d/gatehouse-bwrap'");
    expect(ours).toContain('s#@BWRAP@#/usr/bin/bwrap#');
  });

  it('is what npm run dist runs', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.dist).toBe('npm run build && electron-builder');
  });
});
