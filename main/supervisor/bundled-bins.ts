// Servers that ship with Gatehouse (mcp-server-filesystem, mcp-server-memory…) are found through
// node_modules/.bin in a checkout; a packaged app has no .bin folder (electron-builder does not
// ship it). So a bare command that is not on PATH is looked up in the bin maps of Gatehouse's own
// dependencies and run as `node <entry script>`.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appRoot } from '../paths';

let cache: Map<string, string> | undefined;

function binMap(): Map<string, string> {
  if (cache) return cache;
  const map = new Map<string, string>();
  try {
    const root = appRoot();
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies ?? {})) {
      const dir = path.join(root, 'node_modules', dep);
      const file = path.join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const meta = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; bin?: string | Record<string, string> };
      const bins = typeof meta.bin === 'string' ? { [path.basename(meta.name ?? dep)]: meta.bin } : (meta.bin ?? {});
      for (const [name, rel] of Object.entries(bins)) {
        const entry = path.join(dir, rel);
        // Unpacked next to the asar in a packaged app (electron-builder.yml asarUnpack).
        const unpacked = entry.replace(`${path.sep}app.asar${path.sep}`, `${path.sep}app.asar.unpacked${path.sep}`);
        map.set(name, existsSync(unpacked) ? unpacked : entry);
      }
    }
  } catch {
    // No package metadata to read: nothing bundled to offer.
  }
  cache = map;
  return map;
}

/** The entry script of a bin that one of Gatehouse's own dependencies provides, if any. */
export function bundledBinEntry(command: string): string | undefined {
  if (command.includes('/') || command.includes('\\')) return undefined;
  return binMap().get(command);
}
