// What an importer builds a server from before ProfileBuilder (common.ts) turns it into profile
// input: shared by common.ts and oauth.ts, which common.ts calls, so neither imports the other
// back (docs/architecture.md "Layer order").

/** One server as an importer understood it; strings are already in Gatehouse syntax. */
export interface ServerDraft {
  /** Name in the source file. */
  name: string;
  /** Path of the entry in the source, for messages (`mcpServers.github`). */
  from: string;
  description?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  inheritEnv?: string[];
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  transport?: 'auto' | 'streamable-http' | 'sse';
  disabled?: boolean;
  startupTimeoutS?: number;
  requestTimeoutS?: number;
  /** Tool allow-list (Codex enabled_tools, Gemini includeTools). */
  enabledTools?: string[];
  /** Tool deny-list (Codex disabled_tools, Gemini excludeTools). */
  disabledTools?: string[];
  /** Where the tool lists came from, for rule reasons. */
  toolListKeys?: { enabled: string; disabled: string };
  /** Becomes `auth: oauth` (./oauth.ts). */
  oauth?: DraftOAuth;
}

export interface DraftOAuth {
  clientId?: string;
  /** The clear value from the source; addServer turns it into a ${secret:…} reference. */
  clientSecretValue?: string;
  scopes?: string[];
  redirectPort?: number;
}

/** What oauth.ts needs of the ProfileBuilder: somewhere to say what was dropped or changed. */
export interface DraftWarnings {
  warn(message: string): void;
}
