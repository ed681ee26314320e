// Least privilege: a server's environment is exactly the platform's minimal
// safe set (the MCP SDK's DEFAULT_INHERITED_ENV_VARS: HOME, LOGNAME, PATH, SHELL, TERM, USER
// on POSIX), plus the names the profile passes through with `inherit_env`, plus the
// profile's own `env`. Nothing else of the host's environment reaches a server.
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface EnvInput {
  env: Record<string, string>;
  inheritEnv: string[];
}

export function buildServerEnv(
  spec: EnvInput,
  hostEnv: NodeJS.ProcessEnv,
  opts: { path?: string } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) {
    const value = hostEnv[key];
    // Exported shell functions (`() { …`) are a known injection vector (Shellshock); the SDK skips them too.
    if (value === undefined || value.startsWith('()')) continue;
    out[key] = value;
  }
  // A desktop app started from a dock has a thin PATH; the supervisor hands in the login shell's.
  if (opts.path) out.PATH = opts.path;
  for (const key of spec.inheritEnv) {
    const value = hostEnv[key];
    if (value !== undefined) out[key] = value;
  }
  Object.assign(out, spec.env);
  return out;
}
