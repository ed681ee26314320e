// sha256 of the files that decide what a server runs (main/trust/program-identity.ts), cached by
// what stat says about them, so a restart or a second look costs a stat, not a read.
//
// The cache key is device, inode, size, mtime and ctime: rewriting a file in place changes its
// mtime and ctime, replacing it (rename over) changes its inode, and ctime cannot be set back
// from user space (utimes sets mtime only). File times tick coarsely (the kernel's coarse clock,
// a few ms), so a file changed within the same tick as it was hashed would keep its key: like
// git's "racy clean" check, a file whose ctime is younger than RACY_MS is hashed but not cached.
// Measured on the shared 2-core machine: a cold sha256
// of /usr/bin/node (99 MB) takes ~0.35 s, so the host hashes asynchronously before a launch
// (hashFileAsync via prewarmProgram) and the synchronous start gate then hits the cache.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readdirSync, readSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';

const cache = new Map<string, { key: string; sha256: string }>();
const RACY_MS = 2000;
/**
 * The synchronous hash reads through one buffer of this size: reading /usr/bin/node whole
 * (readFileSync) put its 99 MB into the gateway's peak RSS for the rest of its life.
 */
const READ_CHUNK = 1024 * 1024;
let readBuffer: Buffer | undefined;

function remember(file: string, st: Stats, key: string, sha256: string): void {
  if (Date.now() - st.ctimeMs > RACY_MS) cache.set(file, { key, sha256 });
}

function statKey(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/** sha256 (hex) of a file's bytes; throws when it cannot be read. */
export function hashFileSync(file: string): string {
  const st = statSync(file);
  const key = statKey(st);
  const hit = cache.get(file);
  if (hit?.key === key) return hit.sha256;
  const hash = createHash('sha256');
  const buf = (readBuffer ??= Buffer.allocUnsafe(READ_CHUNK));
  const fd = openSync(file, 'r');
  try {
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  const sha256 = hash.digest('hex');
  remember(file, st, key, sha256);
  return sha256;
}

/** hashFileSync, or undefined when the file cannot be read (a profile deleted while it runs). */
export function fileDigest(file: string): string | undefined {
  try {
    return hashFileSync(file);
  } catch {
    return undefined;
  }
}

/** The same, read as a stream (does not hold the event loop for a large binary); fills the cache. */
export async function hashFileAsync(file: string): Promise<string> {
  const st = statSync(file);
  const key = statKey(st);
  const hit = cache.get(file);
  if (hit?.key === key) return hit.sha256;
  const hash = createHash('sha256');
  await new Promise<void>((resolve, reject) => {
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve())
      .on('error', reject);
  });
  const sha256 = hash.digest('hex');
  // Only cache what was hashed if the file did not change meanwhile.
  if (statKey(statSync(file)) === key) remember(file, st, key, sha256);
  return sha256;
}

/**
 * What a package's hash covers, at most: a package is a folder of many small files (the
 * filesystem server's is ~60 files, 300 kB), and a pathological one must not stall a launch.
 * Beyond the cap the hash covers the first files in sorted order and says it was capped.
 */
export const PACKAGE_HASH_CAP = { files: 2000, bytes: 32 * 1024 * 1024 };

export interface PackageFiles {
  /** Absolute paths, sorted, the package's own files (not its nested node_modules). */
  files: string[];
  capped: boolean;
}

/** The files of a package folder that the package hash covers (see PACKAGE_HASH_CAP). */
export function packageFiles(dir: string): PackageFiles {
  const out: string[] = [];
  let bytes = 0;
  let capped = false;
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (capped) return;
      // Its dependencies are other packages with their own versions; a `.bin` folder holds links.
      if (name === 'node_modules' || name === '.bin') continue;
      const p = path.join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        if (out.length >= PACKAGE_HASH_CAP.files || bytes + st.size > PACKAGE_HASH_CAP.bytes) {
          capped = true;
          return;
        }
        bytes += st.size;
        out.push(p);
      }
    }
  };
  walk(dir);
  return { files: out, capped };
}

/** One hash over a package's files: each relative path and its sha256, in order. */
export function hashPackageSync(dir: string, files: PackageFiles): string {
  const h = createHash('sha256');
  for (const f of files.files) h.update(`${path.relative(dir, f)}\0${hashFileSync(f)}\n`);
  if (files.capped) h.update(`capped at ${PACKAGE_HASH_CAP.files} files / ${PACKAGE_HASH_CAP.bytes} bytes\n`);
  return h.digest('hex');
}
