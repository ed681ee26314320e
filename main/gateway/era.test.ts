import { describe, expect, it } from 'vitest';
import { checkHeaders, checkParamHeaders, decodeHeaderValue, isEraFault, isNewEraRequest, readEra } from './era';

const meta = (v = '2026-07-28', caps: unknown = {}) => ({ 'io.modelcontextprotocol/protocolVersion': v, 'io.modelcontextprotocol/clientCapabilities': caps });

describe('era choice per request', () => {
  it('follows the version header on HTTP, the _meta version without it, and keeps initialize old-era', () => {
    expect(isNewEraRequest({ method: 'tools/list', params: {} }, '2026-07-28')).toBe(true);
    expect(isNewEraRequest({ method: 'tools/list', params: {} }, '2099-01-01')).toBe(true);
    expect(isNewEraRequest({ method: 'tools/list', params: { _meta: meta() } }, '2025-11-25')).toBe(false);
    expect(isNewEraRequest({ method: 'tools/list', params: { _meta: meta() } })).toBe(true);
    expect(isNewEraRequest({ method: 'server/discover' })).toBe(true);
    expect(isNewEraRequest({ method: 'initialize', params: { _meta: meta() } })).toBe(false);
    expect(isNewEraRequest({ method: 'tools/list', params: {} })).toBe(false);
    expect(isNewEraRequest({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
  });

  it('validates _meta with the spec codes', () => {
    const fault = (m: unknown, h?: string) => {
      const r = readEra(m, h);
      return isEraFault(r) ? [r.code, r.status] : 'ok';
    };
    expect(fault({ method: 'tools/list', params: {} })).toEqual([-32602, 400]);
    expect(fault({ method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } } })).toEqual([-32602, 400]);
    expect(fault({ method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } })).toEqual([-32602, 400]);
    expect(fault({ method: 'tools/list', params: { _meta: meta('2026-07-28', []) } })).toEqual([-32602, 400]);
    expect(fault({ method: 'tools/list', params: { _meta: meta('v999') } }, '2026-07-28')).toEqual([-32020, 400]);
    expect(fault({ method: 'tools/list', params: { _meta: meta('v999') } }, 'v999')).toEqual([-32022, 400]);
    expect(fault({ method: 'tools/list', params: { _meta: meta('2025-11-25') } })).toEqual([-32022, 400]);
    expect(readEra({ method: 'tools/list', params: { _meta: meta('v999') } })).toMatchObject({ data: { requested: 'v999', supported: expect.arrayContaining(['2026-07-28', '2025-11-25']) } });
    expect(readEra({ method: 'tools/list', params: { _meta: meta('2026-07-28', { sampling: {} }) } })).toEqual({ protocolVersion: '2026-07-28', clientCapabilities: { sampling: {} } });
  });

  it('checks Mcp-Method and Mcp-Name, and collects Mcp-Param-* to forward', () => {
    const call = { name: 'fs.read', arguments: {} };
    expect(checkHeaders({ 'mcp-method': 'tools/call', 'mcp-name': ' fs.read ', 'mcp-param-region': 'eu' }, 'tools/call', call)).toEqual({ forwardHeaders: { 'mcp-param-region': 'eu' } });
    expect(checkHeaders({ 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${Buffer.from('fs.read').toString('base64')}?=` }, 'tools/call', call)).toEqual({ forwardHeaders: {} });
    for (const h of [{}, { 'mcp-method': 'tools/list', 'mcp-name': 'fs.read' }, { 'mcp-method': 'tools/call' }, { 'mcp-method': 'tools/call', 'mcp-name': 'fs.write' }, { 'mcp-method': 'TOOLS/CALL', 'mcp-name': 'fs.read' }]) {
      expect(checkHeaders(h, 'tools/call', call), JSON.stringify(h)).toMatchObject({ code: -32020, status: 400 });
    }
    expect(checkHeaders({ 'mcp-method': 'resources/read', 'mcp-name': 'test://x' }, 'resources/read', { uri: 'test://x' })).toEqual({ forwardHeaders: {} });
    expect(checkHeaders({ 'mcp-method': 'tools/list' }, 'tools/list', {})).toEqual({ forwardHeaders: {} });
  });

  it('decodes base64 header values and refuses broken ones', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8=?=')).toBe('Hello');
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?SGVs!!!bG8=?=')).toBeUndefined();
    expect(decodeHeaderValue('SGVsbG8=')).toBe('SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
  });
});

describe('SEP-2243 custom headers', () => {
  const schema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'number', 'x-mcp-header': 'N' }, free: { type: 'string' } } };
  it('accepts matching headers (literal or base64) and refuses missing, broken or different ones', () => {
    expect(checkParamHeaders(schema, { region: 'eu', free: 'x' }, { 'mcp-param-region': 'eu' })).toBeUndefined();
    expect(checkParamHeaders(schema, { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8=?=' })).toBeUndefined();
    expect(checkParamHeaders(schema, { n: 3 }, { 'mcp-param-n': '3' })).toBeUndefined();
    expect(checkParamHeaders(schema, {}, {})).toBeUndefined();
    expect(checkParamHeaders(schema, { region: 'eu' }, {})).toMatchObject({ code: -32020, status: 400, message: expect.stringContaining('Mcp-Param-Region is missing') });
    expect(checkParamHeaders(schema, { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' })).toMatchObject({ code: -32020 });
    expect(checkParamHeaders(schema, { region: 'eu' }, { 'mcp-param-region': 'us' })).toMatchObject({ code: -32020, message: expect.stringContaining('does not match') });
  });
});
