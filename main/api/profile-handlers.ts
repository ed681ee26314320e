// Host-API commands about profile files: the list the window shows, importing a client's
// configuration the person dropped on it (quarantined: every server asks first, docs/trust.md),
// and the profiles that changed on disk since they were launched.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectFormat, importFile, ImportError } from '../profiles/importers';
import { userProfilesDir } from '../paths';
import { defaultProfileDirs, listProfiles } from '../profiles/registry';
import type { ApiContext } from './api-context';
import { HostApiError, type Handlers } from './errors';
import type { ProfileWatch } from './profile-watch';
import { profileSummary } from './shapes';

export function profileHandlers(ctx: ApiContext, profileWatch: ProfileWatch) {
  const { host, uiSession } = ctx;
  return {
    'profiles:list': () => listProfiles(defaultProfileDirs(host.env)).map(profileSummary),

    'profiles:import': (input) => {
      const imported = importUploaded(input.fileName, input.text, host.env);
      // Quarantined: whatever pins an earlier profile of this name had are gone; every server asks first.
      host.trust.forget(imported.name, uiSession, 'quarantined');
      return imported;
    },

    'profiles:changes': () => profileWatch.list(),
  } satisfies Partial<Handlers>;
}

/**
 * `profiles:import` from the window: the file's text arrives without its path, so it is staged
 * under its own base name (which drives format detection) and imported into the user's profiles
 * folder under the first free name (`claude-code`, `claude-code-2`, …).
 */
function importUploaded(fileName: string, text: string, env: NodeJS.ProcessEnv): { file: string; name: string; warnings: string[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-import-'));
  try {
    const base = path.basename(fileName).replace(/[^\w.-]/g, '_') || 'mcp.json';
    const src = path.join(dir, base);
    writeFileSync(src, text, { mode: 0o600 });
    const format = detectFormat(src, text);
    if (!format) throw new HostApiError(`${base}: cannot tell which client this configuration is for (Claude Desktop, Claude Code, VS Code, Cursor, Codex or Gemini)`);
    let name: string = format;
    for (let n = 2; existsSync(path.join(userProfilesDir(env), `${name}.yaml`)) && n < 100; n++) name = `${format}-${n}`;
    const result = importFile(src, { format, name, env });
    const secretNotes = result.secrets.map((s) => `set secret ${s.name} before launching (environment variable GATEHOUSE_SECRET_${s.name} or ${s.name})`);
    return { file: result.file, name: result.name, warnings: [...result.warnings, ...secretNotes] };
  } catch (err) {
    if (err instanceof ImportError) throw new HostApiError(err.message);
    throw err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
