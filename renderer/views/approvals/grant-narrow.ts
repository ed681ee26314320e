// "Allow tool for session", narrowed to one argument (docs/ui-layout.md "Approval cards"): which
// arguments can be narrowed, the pattern offered first, and whether a pattern covers this call.
// The host checks the same again (main/approvals/broker.ts refuses a pattern that does not
// compile or does not cover the call being answered); this is what the card shows beforehand.

/** The string arguments of a call: only those can be narrowed to a pattern. */
export function narrowableArgs(args: unknown): string[] {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [];
  return Object.entries(args as Record<string, unknown>)
    .filter(([, v]) => typeof v === 'string')
    .map(([k]) => k);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/**
 * The pattern offered first: a path's folder and everything under it (`docs/a.md` → `docs/.*`),
 * else exactly this value.
 */
export function suggestPattern(value: string): string {
  const cut = value.lastIndexOf('/');
  return cut > 0 ? `${escapeRegExp(value.slice(0, cut + 1))}.*` : escapeRegExp(value);
}

/** Whether `pattern` (matched against the whole value, as the host does) covers `value`; a broken pattern says why. */
export function checkPattern(pattern: string, value: string): { ok: true } | { ok: false; why: string } {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${pattern})$`, 's');
  } catch (e) {
    return { ok: false, why: `not a valid regular expression: ${(e as Error).message}` };
  }
  return re.test(value) ? { ok: true } : { ok: false, why: 'does not match this call\'s value, so it would not allow it' };
}
