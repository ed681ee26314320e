// Canonical name: `<server-id>.<tool-name>` for an upstream tool; a built-in tool's own name
// (`fs.read`, ...). Policy, approvals, audit and trust speak canonical names only; the advertised
// form is what a client sees. Below both the gateway (main/gateway/tool-surface.ts builds the
// surface) and main/trust/ (pins by canonical name), so neither imports the other for it
// (docs/architecture.md, "Layer order").
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export interface SurfaceInput {
  serverId: string;
  /** Built-in servers name their tools canonically themselves (`fs.read`). */
  builtin: boolean;
  tools: Tool[];
  /** What the server said in `instructions`: pinned with its tools (main/trust/tool-definition.ts). */
  instructions?: string;
}

/** `files.read_file` → `files_read_file`, made safe for every client. */
export function toAdvertised(canonical: string): string {
  let name = canonical.replace(/\./g, '_').replace(/[^A-Za-z0-9_-]/g, '_');
  if (name.length === 0) name = '_';
  if (name.length > 64) {
    // Keep names unique after truncation: a short hash of the full canonical name.
    const hash = createHash('sha256').update(canonical).digest('hex').slice(0, 8);
    name = `${name.slice(0, 55)}_${hash}`;
  }
  return name;
}

export function canonicalName(input: SurfaceInput, tool: Tool): string {
  return input.builtin ? tool.name : `${input.serverId}.${tool.name}`;
}
