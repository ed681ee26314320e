// The one "is this a plain JSON object" test, for main and the window alike (main/base/is-object.ts
// passes it on): arrays are objects to `typeof`, and are not records here.

/** True for a non-null object that is not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
