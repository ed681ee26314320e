// Reads a profile file: YAML → plain data → schema. Anything wrong becomes a ProfileError whose
// issues carry file:line:column, so a wrong profile is refused before anything starts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ProfileError, formatPath, type ProfileIssue } from './profile-error';
import { ProfileSchema, type ProfileRaw } from './schema';
import { parseYamlSource, type Anchor, type SourcePos } from './yaml-source';
import { flattenIssues, profileErrorMap } from './zod-messages';

export { ProfileError, formatIssue, formatPath, type ProfileIssue } from './profile-error';

export interface LoadedProfile {
  /** The file as the caller named it; used in messages. */
  file: string;
  /** Absolute path of the file. */
  absFile: string;
  /** `name:` from the file, else the file's name without its extension. */
  name: string;
  /** Validated, defaults applied, `${…}` not yet expanded. */
  raw: ProfileRaw;
  /** Where the node at `path` is in the file (see YamlSource.locate). */
  locate(path: readonly PropertyKey[], anchor?: Anchor, needle?: string): SourcePos;
  /** An issue at `path`, for callers that find problems later (expansion, launch). */
  issueAt(path: readonly PropertyKey[], message: string, needle?: string): ProfileIssue;
}

export function loadProfileFile(file: string): LoadedProfile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a profile file' : (err as Error).message;
    throw new ProfileError([{ file, line: 1, column: 1, path: '', message: `cannot read profile: ${why}` }]);
  }
  return loadProfileText(text, file);
}

export function loadProfileText(text: string, file: string): LoadedProfile {
  const source = parseYamlSource(text);
  const at = (p: readonly PropertyKey[], message: string, anchor: Anchor = 'value', needle?: string): ProfileIssue => {
    const pos = source.locate(p, anchor, needle);
    return { file, line: pos.line, column: pos.column, path: formatPath(p), message };
  };

  if (source.syntaxErrors.length > 0) {
    throw new ProfileError(source.syntaxErrors.map((e) => ({ file, ...e.pos, path: '', message: `YAML syntax error: ${e.message}` })));
  }
  if (source.data === undefined || source.data === null) {
    throw new ProfileError([{ file, line: 1, column: 1, path: '', message: 'the profile is empty; expected a map with at least `servers:`' }]);
  }

  const result = ProfileSchema.safeParse(source.data, { error: profileErrorMap });
  if (!result.success) {
    const issues = flattenIssues(result.error.issues, source.data).map((i) => at(i.path, i.message, i.anchor));
    issues.sort((a, b) => a.line - b.line || a.column - b.column);
    throw new ProfileError(dedupe(issues));
  }

  const raw = result.data;
  return {
    file,
    absFile: path.resolve(file),
    name: raw.name ?? path.basename(file).replace(/\.ya?ml$/i, ''),
    raw,
    locate: source.locate,
    issueAt: (p, message, needle) => at(p, message, 'value', needle),
  };
}

function dedupe(issues: ProfileIssue[]): ProfileIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.line}:${i.column}:${i.path}:${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
