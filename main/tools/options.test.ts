import { expect, it } from 'vitest';
import { UsageError, parseServerArgs } from './options';

it('parses --workspace and --options with defaults', () => {
  const a = parseServerArgs(['--workspace', '/w', '--options', '{"exec":{"allowed_commands":["git"]},"http":{"allow_hosts":["x.test"]}}']);
  expect(a.workspace).toBe('/w');
  expect(a.options).toMatchObject({ max_read_bytes: 1048576, max_write_bytes: 1048576, exec: { timeout_ms: 30000, max_output_bytes: 1048576, allowed_commands: ['git'] }, http: { allow_hosts: ['x.test'], timeout_ms: 30000, max_body_bytes: 1048576, max_redirects: 5 } });
  expect(parseServerArgs(['--workspace=/w']).options.http.allow_hosts).toEqual([]);
});

it('refuses bad arguments with a message that names the field', () => {
  expect(() => parseServerArgs([])).toThrow(UsageError);
  expect(() => parseServerArgs(['--workspace', 'rel'])).toThrow(/absolute/);
  expect(() => parseServerArgs(['--workspace', '/w', '--options', '{'])).toThrow(/not valid JSON/);
  expect(() => parseServerArgs(['--workspace', '/w', '--options', '{"http":{"max_redirects":-1}}'])).toThrow(/http\.max_redirects/);
  expect(() => parseServerArgs(['--workspace', '/w', '--verbose'])).toThrow(/unknown argument/);
});
