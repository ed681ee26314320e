import { describe, expect, it } from 'vitest';
import { agentSandboxSpec } from './agent-sandbox';
import { PRESETS } from '../agents/presets';

describe('agentSandboxSpec', () => {
  it('a preset agent: strict, its config folder writable, its API hosts through the proxy, the gateway port', () => {
    expect(agentSandboxSpec({ profile: undefined, preset: PRESETS['claude-code'].sandbox, gatewayUrl: 'http://127.0.0.1:4100/mcp', home: '/home/ada' })).toEqual({
      mode: 'strict',
      write: ['/home/ada/.claude', '/home/ada/.claude.json'],
      read: [],
      network: { kind: 'allow', hosts: ['api.anthropic.com', 'console.anthropic.com', 'claude.ai', 'statsig.anthropic.com'] },
      hostPorts: [4100],
    });
  });

  it('a shell: loopback with the gateway port only; `none` still keeps the gateway; off stays off', () => {
    expect(agentSandboxSpec({ profile: undefined, preset: undefined, gatewayUrl: 'http://127.0.0.1:4100/mcp' })).toMatchObject({ network: { kind: 'loopback' }, hostPorts: [4100] });
    expect(agentSandboxSpec({ profile: { mode: 'strict', write: [], read: [], hostPorts: [], network: { kind: 'none' } }, preset: undefined, gatewayUrl: 'http://127.0.0.1:9/mcp' }).network).toEqual({ kind: 'loopback' });
    expect(agentSandboxSpec({ profile: { mode: 'off', write: [], read: [], hostPorts: [] }, preset: PRESETS.codex.sandbox, gatewayUrl: 'http://127.0.0.1:9/mcp' }).mode).toBe('off');
  });

  it("the profile's grants add to the preset's", () => {
    const s = agentSandboxSpec({ profile: { mode: 'strict', write: ['/data'], read: ['/etc/x'], hostPorts: [5432] }, preset: PRESETS.gemini.sandbox, gatewayUrl: 'http://127.0.0.1:9/mcp', home: '/h' });
    expect(s.write).toEqual(['/h/.gemini', '/data']);
    expect(s.hostPorts).toEqual([5432, 9]);
    expect(s.network.kind).toBe('allow');
  });
});
