// The one "is this a plain JSON object" test main uses on parsed input (config files, MCP
// params, elicitation schemas): arrays are objects to `typeof`, and are not records here.

/** True for a non-null object that is not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
