// Installs the Electron binary that `npm install` leaves out (electron 45 downloads it lazily, and
// CI/offline installs skip it with ELECTRON_SKIP_BINARY_DOWNLOAD), showing progress as it goes.
//
// The download is @electron/get's (electron's own dependency, same mirror variables:
// ELECTRON_MIRROR, ELECTRON_CUSTOM_DIR…, same checksums.json), into its cache; electron's own
// install.js then finds the zip there and extracts it, so the layout (dist/, path.txt) is exactly
// what `npx install-electron` makes. Used by scripts/start.mjs; runs on its own too:
//   node scripts/install-electron.mjs
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const electronPackage = path.join(root, 'node_modules', 'electron');

/** No bytes for this long (before the first or between two) means the network is not there. */
const STALL_MS = 20_000;

/** The binary the electron package points at, when it is there. */
export function electronBinary() {
  const pathFile = path.join(electronPackage, 'path.txt');
  const dist = process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(electronPackage, 'dist');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const binary = rel ? path.join(dist, rel) : undefined;
  return binary && existsSync(binary) ? binary : undefined;
}

/** The innermost message of a fetch failure ("connect ECONNREFUSED 127.0.0.1:9"). */
function why(err) {
  let e = err;
  const parts = [];
  for (let i = 0; e && i < 4; i++, e = e.cause) {
    const m = e.errors?.[0]?.message ?? e.message;
    if (m && !parts.includes(m)) parts.push(m);
  }
  return parts.join(': ') || String(err);
}

const mb = (n) => `${(n / 1e6).toFixed(0)} MB`;

/**
 * Downloads and installs the binary. `say` gets one line per 10 % (and the start and the end).
 * Resolves { ok: true, binary } or { ok: false, reason } (never rejects).
 */
export async function installElectron(say = (line) => process.stderr.write(`${line}\n`)) {
  let version;
  let get;
  try {
    version = JSON.parse(readFileSync(path.join(electronPackage, 'package.json'), 'utf8')).version;
    const require = createRequire(path.join(electronPackage, 'package.json'));
    get = await import(pathToFileURL(require.resolve('@electron/get')).href);
  } catch (err) {
    return { ok: false, reason: `the electron package is incomplete (${why(err)}); run npm install` };
  }
  const controller = new AbortController();
  let stall = setTimeout(() => controller.abort(new Error(`no data for ${STALL_MS / 1000} s`)), STALL_MS);
  // The first line waits for the first bytes: offline, the caller's one line is all there is.
  let shown = -1;
  try {
    await get.downloadArtifact({
      version,
      artifactName: 'electron',
      platform: process.platform,
      arch: process.arch,
      checksums: JSON.parse(readFileSync(path.join(electronPackage, 'checksums.json'), 'utf8')),
      cacheRoot: process.env.electron_config_cache,
      downloadOptions: {
        quiet: true,
        signal: controller.signal,
        getProgressCallback: ({ transferred, total, percent }) => {
          clearTimeout(stall);
          stall = setTimeout(() => controller.abort(new Error(`no data for ${STALL_MS / 1000} s`)), STALL_MS);
          const step = Math.floor(percent * 10);
          if (shown < 0) say(`the Electron binary is not installed (npm install leaves it out): downloading Electron ${version} for ${process.platform}-${process.arch}, once`);
          if (step > shown) {
            shown = step;
            say(`downloading Electron ${version}: ${step * 10}%${total ? ` (${mb(transferred)} of ${mb(total)})` : ''}`);
          }
        },
      },
    });
  } catch (err) {
    return { ok: false, reason: why(controller.signal.aborted ? controller.signal.reason : err) };
  } finally {
    clearTimeout(stall);
  }
  // electron's own installer: finds the zip in the cache, extracts it, writes path.txt.
  const r = spawnSync(process.execPath, [path.join(electronPackage, 'install.js')], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
  const binary = electronBinary();
  if (r.status !== 0 || !binary) return { ok: false, reason: `extracting failed (${(r.stderr || `exit ${r.status}`).trim().split('\n').pop()})` };
  say(`installed Electron ${version}`);
  return { ok: true, binary };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await installElectron((line) => process.stderr.write(`install-electron: ${line}\n`));
  if (!r.ok) process.stderr.write(`install-electron: ${r.reason}\n`);
  process.exit(r.ok ? 0 : 1);
}
