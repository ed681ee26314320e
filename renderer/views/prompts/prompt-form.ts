// The Prompts view's form model: MCP prompt arguments are strings (server/prompts
// "PromptArgument"); an empty field is left out, and a required one left empty is named.
export interface PromptArgument {
  name: string;
  required?: boolean;
}

export function promptArguments(spec: readonly PromptArgument[], values: Record<string, string>): { arguments: Record<string, string>; missing: string[] } {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const a of spec) {
    const v = values[a.name] ?? '';
    if (v !== '') out[a.name] = v;
    else if (a.required) missing.push(a.name);
  }
  return { arguments: out, missing };
}
