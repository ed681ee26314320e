// Resource templates are RFC 6570 URI templates (MCP server/resources "Resource Templates"):
// the SDK's own implementation reads and fills them, as the gateway matches them (catalog.ts).
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';

export function templateVariables(template: string): string[] {
  try {
    return new UriTemplate(template).variableNames;
  } catch {
    return [];
  }
}

/** The URI with the values filled in (an empty value leaves its expression empty). */
export function expandTemplate(template: string, values: Record<string, string>): string {
  try {
    return new UriTemplate(template).expand(values);
  } catch {
    return template;
  }
}
