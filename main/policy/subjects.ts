// How a resources/read and a prompts/get are named where a tool call has its canonical name:
// the decision the gateway records (audit `tool`), the approval a person sees and the session
// grants. `resource:<uri>` and `prompt:<server>.<prompt>` can never be a canonical tool name,
// whose server id has no `:` (main/profiles/schema.ts SERVER_ID_RE), so `gatehouse policy test`
// (./replay.ts) knows from the recorded name which rules to replay it through.

export const RESOURCE_PREFIX = 'resource:';
export const PROMPT_PREFIX = 'prompt:';

export function resourceSubject(uri: string): string {
  return `${RESOURCE_PREFIX}${uri}`;
}

export function promptSubject(server: string, name: string): string {
  return `${PROMPT_PREFIX}${server}.${name}`;
}

export type Subject = { kind: 'tool'; tool: string } | { kind: 'resource'; uri: string } | { kind: 'prompt'; server: string; name: string };

/** A recorded name back into what it names (a prompt name without its server is taken whole). */
export function parseSubject(recorded: string, server?: string): Subject {
  if (recorded.startsWith(RESOURCE_PREFIX)) return { kind: 'resource', uri: recorded.slice(RESOURCE_PREFIX.length) };
  if (recorded.startsWith(PROMPT_PREFIX)) {
    const rest = recorded.slice(PROMPT_PREFIX.length);
    const prefix = server !== undefined && rest.startsWith(`${server}.`) ? server : rest.split('.')[0]!;
    return { kind: 'prompt', server: prefix, name: rest.slice(prefix.length + 1) };
  }
  return { kind: 'tool', tool: recorded };
}
