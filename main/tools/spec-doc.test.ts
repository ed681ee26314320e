import { expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { generateToolSpecMarkdown, schemaType } from './spec-doc';

const tool: Tool = {
  name: 'search',
  title: 'Search',
  description: 'Finds things | quickly.',
  inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'query', examples: ['a|b'] }, n: { type: 'integer', minimum: 1 } }, required: ['q'] },
  annotations: { readOnlyHint: true, openWorldHint: true },
};

it('renders names, parameters (escaped), idempotency and security notes deterministically', () => {
  const md = generateToolSpecMarkdown({ serverId: 'web', serverName: 'Web', tools: [tool], securityNotes: { search: ['Sends queries to a third party.'] } });
  expect(md).toBe(generateToolSpecMarkdown({ serverId: 'web', serverName: 'Web', tools: [tool], securityNotes: { search: ['Sends queries to a third party.'] } }));
  expect(md).toContain('## `search` (`web.search`)');
  expect(md).toContain('advertised on the canonical surface as `web_search`');
  expect(md).toContain('| `q` | string | yes | query | `"a\\|b"` |');
  expect(md).toContain('| `n` | integer (≥ 1) | no |  |  |');
  expect(md).toContain('Idempotent: read-only');
  expect(md).toContain('- Sends queries to a third party.');
  expect(md).toContain('No outputSchema');
  expect(md).toContain('Not declared by the server.');
  expect(md.endsWith('\n')).toBe(true);
});

it('describes JSON Schema types compactly', () => {
  expect(schemaType({ type: 'array', items: { type: 'string' } })).toBe('array<string>');
  expect(schemaType({ type: 'object', additionalProperties: { type: 'string' } })).toBe('object<string, string>');
  expect(schemaType({ enum: ['a', 'b'] })).toBe('"a" | "b"');
  expect(schemaType({ type: ['string', 'null'] })).toBe('string | null');
});
