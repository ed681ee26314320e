// Which MCP protocol versions are the new era (MCP 2026-07-28: stateless, `_meta`,
// `server/discover`, input_required); the old era is 2025-11-25 and before (`initialize` and
// sessions), and a version in neither list is refused (-32022). One rule for the gateway
// (main/gateway/era.ts, which serves exactly these) and the window (renderer/lib/era.ts).

/** The stateless revisions the gateway serves, newest first. */
export const NEW_ERA_VERSIONS = ['2026-07-28'] as const;

/**
 * True for a version of the new era. A list, not `>= '2026-07-28'`: a later date the gateway
 * does not know is refused with -32022 (main/gateway/era.ts), so it is no era the gateway speaks.
 */
export function isNewEraVersion(version: string | undefined): boolean {
  return version !== undefined && (NEW_ERA_VERSIONS as readonly string[]).includes(version);
}
