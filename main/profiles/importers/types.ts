// The contract every client-config importer fulfils (one module per format in this folder).
import type { ProfileInput } from '../schema';

export const IMPORT_FORMATS = ['claude-desktop', 'claude-code', 'vscode', 'cursor', 'codex', 'gemini'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportOptions {
  /** The source file's path as the user named it: used for detection hints and messages. */
  fileName: string;
  /** Written as `name:` when given; otherwise the profile is named after its file. */
  profileName?: string;
  /** `workspace:` of the profile; `.` (the profile file's folder) when not given. */
  workspace?: string;
}

export interface ImportedSecret {
  /** The `${secret:NAME}` name; the user sets GATEHOUSE_SECRET_<NAME> (or NAME). */
  name: string;
  /** Where in the source the value was (e.g. `mcpServers.github.env.GITHUB_TOKEN`). Never the value. */
  from: string;
  /**
   * clear-text: the source held the value itself (it was not copied; the user must set it);
   * reference: the source read it from an environment variable of the same name;
   * input: the client prompted for it (VS Code `inputs`).
   */
  kind: 'clear-text' | 'reference' | 'input';
  /** The client's own description of the value, when it had one (VS Code inputs). */
  description?: string;
}

export interface ImportResult {
  format: ImportFormat;
  /** The profile as written to YAML (before schema defaults). Contains no secret value. */
  profile: ProfileInput;
  /** What could not be represented, each naming the source key. */
  warnings: string[];
  secrets: ImportedSecret[];
  /** Source server name → profile server id, for every server imported (renamed or not). */
  serverIds: Record<string, string>;
}

export interface Importer {
  format: ImportFormat;
  /** Human name of the client ("Claude Desktop"). */
  label: string;
  /** True when `text` (from a file called `fileName`) looks like this client's configuration. */
  detect(fileName: string, text: string): boolean;
  /** Throws ImportError when the text cannot be parsed at all. */
  importConfig(text: string, opts: ImportOptions): ImportResult;
}
