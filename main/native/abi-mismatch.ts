// A native module (better-sqlite3, node-pty) built for another Node than the one running us: a
// client with Node 22 first on its PATH starting `bin/gatehouse` built under Node 20, or Electron
// next to a checkout built for Node. Loading the addon throws (`was compiled against a different
// Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires
// NODE_MODULE_VERSION 127`); the caller turns that feature off with the one line this returns,
// naming the fix, and keeps serving.

/** NODE_MODULE_VERSION → the runtime that uses it (nodejs.org/en/download/releases, "NODE_MODULE_VERSION"). */
const ABI_RUNTIMES: Readonly<Record<number, string>> = {
  108: 'Node 18',
  115: 'Node 20',
  120: 'Node 21',
  127: 'Node 22',
  131: 'Node 23',
  137: 'Node 24',
  141: 'Node 25',
};

function runtimeOf(abi: number): string {
  return ABI_RUNTIMES[abi] ?? `NODE_MODULE_VERSION ${abi}`;
}

const MISMATCH = /NODE_MODULE_VERSION (\d+)\.\s*This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/;

/** True when `err` is a native addon that failed to load because of its ABI (or is not loadable at all here). */
export function isNativeLoadError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  return MISMATCH.test(message) || /compiled against a different Node\.js version|invalid ELF header|wrong ELF class|Module did not self-register/.test(message) || code === 'ERR_DLOPEN_FAILED';
}

/**
 * The one-line warning for a native module that cannot load here, or undefined when `err` is
 * something else (which the caller should rethrow). `feature` says what is off
 * ("the audit store is off", "terminals are unavailable").
 */
export function nativeLoadProblem(err: unknown, module: string, feature: string): string | undefined {
  if (!isNativeLoadError(err)) return undefined;
  const message = err instanceof Error ? err.message : String(err);
  const running = process.versions.electron ? `Electron ${process.versions.electron}` : `Node ${process.versions.node}`;
  // In Electron the fix is a rebuild for Electron's ABI (electron-builder does it for `npm run dist`).
  const rebuild = process.versions.electron ? '`npx electron-builder install-app-deps`' : `\`npm rebuild ${module}\` with this Node`;
  const m = MISMATCH.exec(message);
  if (m) {
    const built = runtimeOf(Number(m[1]));
    return `${feature}: ${module} was built for ${built} (NODE_MODULE_VERSION ${m[1]}) but this is ${running} (${m[2]}); run ${rebuild}, or start Gatehouse with ${built}`;
  }
  return `${feature}: ${module} cannot load in ${running} (${message.split('\n')[0]}); run ${rebuild}`;
}
