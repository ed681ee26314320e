// Writes workspace-profiles/profile.schema.json from the zod schema (main/profiles/schema.ts),
// the single source of truth. A test fails when the committed file is stale; run this to fix it.
//   node scripts/gen-profile-schema.mjs          write the file
//   node scripts/gen-profile-schema.mjs --check  exit 1 when the file is out of date
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'workspace-profiles', 'profile.schema.json');

// Bundle the TypeScript (zod included) in memory and import it from a data: URL, so no
// build output or temp file is needed and plain `node` can run this.
const result = await build({
  absWorkingDir: root,
  entryPoints: ['main/profiles/json-schema.ts'],
  bundle: true,
  write: false,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
const code = result.outputFiles[0].text;
const mod = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
const text = mod.profileJsonSchemaText();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {}
  if (current !== text) {
    process.stderr.write(`${path.relative(root, target)} is out of date; run node scripts/gen-profile-schema.mjs\n`);
    process.exit(1);
  }
  process.stderr.write(`${path.relative(root, target)} is current\n`);
} else {
  writeFileSync(target, text);
  process.stderr.write(`wrote ${path.relative(root, target)}\n`);
}
