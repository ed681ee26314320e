// The JSON Schema editors use to complete and check profiles (yaml-language-server reads the
// `# yaml-language-server: $schema=...` line). Generated from ProfileSchema so the two
// cannot drift; `workspace-profiles/profile.schema.json` is this text, checked by a test.
import { z } from 'zod';
import { ProfileSchema } from './schema';

export const PROFILE_SCHEMA_FILE = 'profile.schema.json';

export function profileJsonSchema(): Record<string, unknown> {
  // io: 'input' describes what a person writes (defaulted keys optional). draft-07 because
  // that is the dialect yaml-language-server supports best.
  const schema = z.toJSONSchema(ProfileSchema, { io: 'input', target: 'draft-07' }) as Record<string, unknown>;
  return { ...schema, title: 'Gatehouse workspace profile' };
}

/** The exact text of workspace-profiles/profile.schema.json. */
export function profileJsonSchemaText(): string {
  return `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
}
