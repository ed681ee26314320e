// One error type for everything wrong with a profile: YAML syntax, schema, and `${…}`
// expansion. A profile is refused as a whole, with every problem at once, each with the
// file, line and column, so the user fixes them in one pass (ARCHITECTURE.md, "Interfaces").

export interface ProfileIssue {
  /** The file as the caller named it (relative or absolute). */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** Dotted path of the offending setting (`servers.files.command`, `policy.rules[0].match`); '' for the whole file. */
  path: string;
  message: string;
}

export function formatIssue(issue: ProfileIssue): string {
  const where = `${issue.file}:${issue.line}:${issue.column}`;
  return issue.path ? `${where} ${issue.path}: ${issue.message}` : `${where} ${issue.message}`;
}

export class ProfileError extends Error {
  override readonly name = 'ProfileError';

  constructor(readonly issues: ProfileIssue[]) {
    super(issues.map(formatIssue).join('\n'));
  }
}

const PLAIN_KEY = /^[A-Za-z0-9_-]+$/;

/** `['servers', 'files', 'env', 'API_KEY']` → `servers.files.env.API_KEY`; indices as `[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      if (PLAIN_KEY.test(s)) out += out ? `.${s}` : s;
      else out += `[${JSON.stringify(s)}]`;
    }
  }
  return out;
}
