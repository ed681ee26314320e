// Text that must fit on one line (a DENY reason the agent sees, an audit listing, a policy
// reason): runs of whitespace, newlines included, become one space, and a text longer than
// `max` is cut with an ellipsis. Each caller keeps its own limit: 300 for gateway errors
// (main/gateway/call-pipeline.ts), 200 for policy reasons (main/policy/engine.ts), 120 in
// the audit listing (main/audit/format.ts).

/** `text` on one line, trimmed, at most `max` characters (UTF-16 code units) with the ellipsis. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
