// The window labels a version new exactly when the gateway serves it as new (one rule,
// common/protocol-era.ts): a later date the gateway refuses with -32022 is not labelled new.
import { describe, expect, it } from 'vitest';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, UNSUPPORTED_PROTOCOL_VERSION, isEraFault, readEra } from '../../main/gateway/era';
import { isNewEraVersion, newEraSides } from '../../renderer/lib/era';

function served(version: string): boolean {
  const r = readEra({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [META_PROTOCOL_VERSION]: version, [META_CLIENT_CAPABILITIES]: {} } } });
  if (isEraFault(r)) expect(r.code).toBe(UNSUPPORTED_PROTOCOL_VERSION);
  return !isEraFault(r);
}

describe('the era rule', () => {
  it('agrees with the gateway for every version it may see', () => {
    for (const v of ['2026-07-28', '2025-11-25', '2025-06-18', '2024-11-05', '2027-01-01', '2099-12-31', 'draft']) {
      expect({ v, label: isNewEraVersion(v) }).toEqual({ v, label: served(v) });
    }
  });

  it('says which side of an exchange spoke the new era', () => {
    expect(newEraSides({ agentEra: '2026-07-28', upstreamEra: '2025-11-25' })).toBe('agent');
    expect(newEraSides({ agentEra: '2025-11-25', upstreamEra: '2026-07-28' })).toBe('server');
    expect(newEraSides({ agentEra: '2026-07-28', upstreamEra: '2026-07-28' })).toBe('both');
    expect(newEraSides({ agentEra: '2027-01-01' })).toBeUndefined();
    expect(newEraSides({})).toBeUndefined();
  });
});
