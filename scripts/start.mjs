// `npm start`: the desktop app with the demo profile ready to launch (ARCHITECTURE.md).
//
// 0. Checks the machine (scripts/preflight.mjs, the one list: bubblewrap, and to install, a C
//    toolchain and python3) and says in one block what is missing with this OS's command, or
//    installs it as root with apt. Then installs the dependencies when node_modules is missing
//    (npm ci with ELECTRON_SKIP_BINARY_DOWNLOAD, as .ci/run does; GATEHOUSE_NPM names another
//    npm). A missing bubblewrap does not stop it: the app opens, its servers say why they wait.
// 1. Builds when out/ is missing or older than the sources (offline: esbuild and Vite only).
// 2. Starts Electron when it can. `npm install` does not download the Electron binary (electron
//    45 fetches it lazily; CI and offline installs skip it): when it is the only thing missing,
//    it is downloaded here, with progress (scripts/install-electron.mjs), and the window opens.
//    Offline, that is said in one line and the headless shell runs instead. Electron also cannot
//    start when its shell is not built or on Linux without a display; then it says which, and
//    runs the headless shell (`gatehouse serve --port 0`). Its one-time login URL is shown only
//    where the person alone can read it (main/web/login-code-sink.ts): opened in the system
//    browser when there is a display (`--open`), printed when stderr is a terminal, else kept in
//    a 0600 file of the data dir that `gatehouse serve --print-login-url` shows on a terminal.
//
// The demo is listed, not launched: one click on Launch starts its servers, so nothing runs
// before a person asks for it. `npm start -- --profile demo` launches it at start instead.
// `npm start -- --headless` skips Electron on purpose. Other arguments go to `gatehouse serve`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary, installElectron } from './install-electron.mjs';
import { preflight } from './preflight.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const headlessAsked = args.includes('--headless') || process.env.GATEHOUSE_HEADLESS === '1';
const serveArgs = args.filter((a) => a !== '--headless');
const say = (line) => process.stderr.write(`gatehouse: ${line}\n`);

const OUTPUTS = ['out/cli.mjs', 'out/tools-server.mjs', 'out/audit-writer.mjs', 'out/renderer/index.html', 'out/electron/main.cjs', 'out/preload/index.cjs'];
const SOURCES = ['main', 'common', 'renderer', 'preload', 'resources', 'scripts/build.mjs', 'vite.config.ts', 'package.json'];

function newestMtime(p) {
  let st;
  try {
    st = statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  }
  return newest;
}

function buildIfStale() {
  const outputs = OUTPUTS.map((o) => path.join(root, o));
  const missing = outputs.filter((o) => !existsSync(o));
  const oldest = missing.length > 0 ? 0 : Math.min(...outputs.map((o) => statSync(o).mtimeMs));
  const newestSource = Math.max(...SOURCES.map((s) => newestMtime(path.join(root, s))));
  if (missing.length === 0 && oldest >= newestSource) return;
  say(missing.length > 0 ? `building (missing ${missing.map((m) => path.relative(root, m)).join(', ')})` : 'building (sources changed since the last build)');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    say('the build failed (see above); fix it, or run npm run build for details');
    process.exit(1);
  }
  const still = outputs.filter((o) => !existsSync(o));
  if (still.length > 0) {
    say(`the build did not produce ${still.map((m) => path.relative(root, m)).join(', ')}`);
    process.exit(1);
  }
}

/** Why Electron cannot start here (every reason, not just the first), or the binary and entry; never downloads. */
function electronProblem() {
  if (headlessAsked) return { reason: 'the headless shell was asked for (--headless or GATEHOUSE_HEADLESS=1)' };
  const reasons = [];
  const entry = path.join(root, 'out', 'electron', 'main.cjs');
  if (!existsSync(entry)) reasons.push('the Electron shell is not built in this checkout (no out/electron/main.cjs)');
  // Not require('electron'): its index.js downloads the binary when it is missing.
  const pkg = path.join(root, 'node_modules', 'electron');
  const binary = electronBinary();
  let missingBinary = false;
  if (!existsSync(pkg)) reasons.push('the electron package is not installed');
  else if (!binary) missingBinary = true;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    reasons.push('there is no display (DISPLAY and WAYLAND_DISPLAY are unset)');
  }
  if (reasons.length > 0) {
    if (missingBinary) reasons.push('the Electron binary is not installed (`npx install-electron` fetches it)');
    return { reason: reasons.join('; ') };
  }
  return missingBinary ? { missingBinary, entry } : { binary, entry };
}

function run(command, argv) {
  const child = spawn(command, argv, { cwd: root, stdio: 'inherit' });
  // Ctrl-C reaches the child through the terminal's process group; a SIGTERM sent to this
  // script alone is passed on. Either way this script waits for the child and exits with it.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGHUP', () => child.kill('SIGHUP'));
  child.on('error', (err) => {
    say(`cannot start ${command}: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
}

function checkMachine() {
  const install = process.env.GATEHOUSE_NO_INSTALL !== '1';
  // The machine first, on its own: its block comes before npm's minutes of output, not after.
  const machine = preflight({ purpose: 'start', install, packages: false, say });
  if (machine.block) process.stderr.write(`${machine.block}\n`);
  if (machine.blocked) {
    say('cannot install the dependencies without that (above); nothing was started');
    process.exit(1);
  }
  if (machine.block) say("starting anyway: the app opens, but a profile's servers cannot start until that is installed");
  const packages = preflight({ purpose: 'start', install, say });
  if (packages.blocked || !packages.ok) {
    const why = packages.missing.filter((m) => m.id.startsWith('npm:')).map((m) => m.reason);
    if (why.length > 0) {
      say(`${why.join('; ')}; nothing was started`);
      process.exit(1);
    }
  }
}

checkMachine();
// GATEHOUSE_NO_BUILD=1: use out/ as it is (a test that must not rebuild under other tests).
if (process.env.GATEHOUSE_NO_BUILD !== '1') buildIfStale();
const electron = electronProblem();
if (electron.missingBinary) {
  // Everything else is there: fetch the binary now, once, rather than fall back every time.
  const installed = await installElectron((line) => say(line));
  if (installed.ok) electron.binary = installed.binary;
  else {
    say(`offline: Electron could not be downloaded (${installed.reason}); serving the app headless instead, at the login URL below (npm start again when online installs it)`);
    electron.quiet = true;
  }
}
if (electron.binary) {
  say('starting the desktop app (Electron)');
  // Chromium refuses to run as root with its sandbox on Linux; say so rather than fail.
  const rootArgs = process.platform === 'linux' && process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  if (rootArgs.length > 0) say('running as root: Chromium sandbox off (--no-sandbox)');
  run(electron.binary, [electron.entry, ...rootArgs, ...serveArgs]);
} else {
  const display = process.platform === 'darwin' || process.platform === 'win32' || !!process.env.DISPLAY || !!process.env.WAYLAND_DISPLAY;
  const open = display && !serveArgs.includes('--open') ? ['--open'] : [];
  if (!electron.quiet) {
    say(`not starting Electron: ${electron.reason}`);
    say(`running the headless shell instead${open.length > 0 ? ' (opening it in your browser)' : process.stderr.isTTY ? ': open the login URL below in a browser' : ''}`);
  }
  run(process.execPath, [path.join(root, 'out', 'cli.mjs'), 'serve', '--port', '0', ...open, ...serveArgs]);
}
