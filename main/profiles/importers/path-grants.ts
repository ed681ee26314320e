// Absolute paths in an imported server's arguments (a filesystem server's roots, a repository,
// a database file) are what the source client let the server reach, unsandboxed. In a sandbox
// they would be invisible, so the import makes each an explicit grant the review shows:
// a folder becomes a write grant, a file a read grant (docs/sandbox.md "Grants"). Paths that
// are not on this machine, and the system's own folders, are not granted and are said so.
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface PathGrants {
  write: string[];
  read: string[];
  /** One line per path that was seen and not granted, and why. */
  skipped: string[];
}

/** Never granted from an import: the system's own folders (and `/` itself). */
const SYSTEM = new Set(['/', '/bin', '/boot', '/dev', '/etc', '/lib', '/lib64', '/proc', '/root', '/run', '/sbin', '/sys', '/usr', '/var', '/tmp', '/home', '/Users']);

function candidates(arg: string): string[] {
  // `--root=/srv/data` and `/srv/data`; not URLs, not `${…}` expansions (they are the profile's own).
  const value = /^--?[\w-]+=(.*)$/.exec(arg)?.[1] ?? arg;
  if (value.includes('${') || /^[a-z][\w+.-]*:\/\//i.test(value)) return [];
  return value.startsWith('/') || value.startsWith('~/') ? [value] : [];
}

export function pathGrants(args: readonly string[], home: string = os.homedir()): PathGrants {
  const out: PathGrants = { write: [], read: [], skipped: [] };
  for (const arg of args) {
    for (const written of candidates(arg)) {
      const abs = path.resolve(written.startsWith('~/') ? path.join(home, written.slice(2)) : written);
      if (SYSTEM.has(abs) || abs === home) {
        out.skipped.push(`${written}: not granted (a system or home folder as a whole; grant the folders it needs)`);
        continue;
      }
      const st = statSync(abs, { throwIfNoEntry: false });
      if (!st) out.skipped.push(`${written}: not granted (it does not exist on this machine; add it to sandbox.write once it does)`);
      else if (st.isDirectory()) out.write.push(written);
      else out.read.push(written);
    }
  }
  out.write = [...new Set(out.write)];
  out.read = [...new Set(out.read)];
  return out;
}
