// Import of the clients' OAuth settings (docs/auth.md "In a profile"): Claude Code's `oauth` object and remote
// entries, VS Code remote entries, and `mcp-remote` wrappers (Claude Desktop, Cursor...) become
// `auth: oauth` servers that validate; no client secret value reaches the profile.
import { describe, expect, it } from 'vitest';
import { importConfigText } from '../../main/profiles/importers';
import { ProfileSchema } from '../../main/profiles/schema';

const claudeCode = JSON.stringify({
  mcpServers: {
    notion: { type: 'http', url: 'https://mcp.notion.com/mcp' },
    corp: { type: 'http', url: 'https://mcp.corp.example/mcp', oauth: { clientId: 'gatehouse-corp', callbackPort: 8765, scopes: 'read write' } },
    sentry: { type: 'http', url: 'https://mcp.sentry.dev/mcp', headers: { Authorization: 'Bearer ${SENTRY_TOKEN}' } },
  },
});

const claudeDesktop = JSON.stringify({
  mcpServers: {
    linear: { command: 'npx', args: ['-y', 'mcp-remote', 'https://mcp.linear.app/sse'] },
    atlassian: {
      command: 'npx',
      args: [
        'mcp-remote@0.1.29',
        'https://mcp.atlassian.com/v1/mcp',
        '9696',
        '--transport',
        'http-only',
        '--static-oauth-client-info',
        '{"client_id":"atl-client","client_secret":"atl-secret-0123456789abcdef"}',
        '--static-oauth-client-metadata',
        '{"scope":"read:jira write:jira"}',
      ],
    },
    withtoken: { command: 'npx', args: ['mcp-remote', 'https://api.example.com/mcp', '--header', 'Authorization: Bearer ${AUTH_TOKEN}'], env: { AUTH_TOKEN: 'tok_abcdef0123456789abcdef' } },
    local: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
  },
});

describe('importing OAuth settings', () => {
  it('Claude Code: remote entries sign in; the oauth object maps to client_id, redirect_port and scopes', () => {
    const r = importConfigText(claudeCode, { fileName: '.mcp.json', workspace: '/w' });
    expect(r.profile.servers).toMatchObject({
      notion: { url: 'https://mcp.notion.com/mcp', auth: 'oauth' },
      corp: { url: 'https://mcp.corp.example/mcp', auth: 'oauth', client_id: 'gatehouse-corp', redirect_port: 8765, scopes: ['read', 'write'] },
    });
    // A server that sends its own token keeps it, and is not signed in twice.
    expect(r.profile.servers!.sentry).not.toHaveProperty('auth');
    expect(r.warnings.join('\n')).toMatch(/callbackPort: Gatehouse's redirect URI is http:\/\/127\.0\.0\.1:8765\/callback/);
    expect(ProfileSchema.safeParse(r.profile).success).toBe(true);
  });

  it('mcp-remote wrappers become the remote server, with auth: oauth and the client secret as a ${secret:…}', () => {
    const r = importConfigText(claudeDesktop, { fileName: 'claude_desktop_config.json', workspace: '/w' });
    const s = r.profile.servers!;
    expect(s.linear).toEqual({ url: 'https://mcp.linear.app/sse', auth: 'oauth' });
    expect(s.atlassian).toMatchObject({
      url: 'https://mcp.atlassian.com/v1/mcp',
      transport: 'streamable-http',
      auth: 'oauth',
      client_id: 'atl-client',
      client_secret: expect.stringMatching(/^\$\{secret:[A-Z0-9_]+\}$/),
      scopes: ['read:jira', 'write:jira'],
      redirect_port: 9696,
    });
    expect(s.withtoken).toMatchObject({ url: 'https://api.example.com/mcp', headers: { Authorization: expect.stringMatching(/^Bearer \$\{secret:/) } });
    expect(s.withtoken).not.toHaveProperty('auth');
    expect(s.local).toMatchObject({ command: 'npx' });
    const text = JSON.stringify(r.profile);
    expect(text).not.toContain('atl-secret-0123456789abcdef');
    expect(text).not.toContain('tok_abcdef0123456789abcdef');
    expect(r.secrets.map((x) => x.kind)).toContain('clear-text');
    expect(ProfileSchema.safeParse(r.profile).success).toBe(true);
  });

  it('VS Code remote entries sign in unless they carry an Authorization header', () => {
    const r = importConfigText(JSON.stringify({ servers: { gh: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } } }), { fileName: '.vscode/mcp.json', workspace: '/w' });
    expect(r.profile.servers!.gh).toMatchObject({ url: 'https://api.githubcopilot.com/mcp/', auth: 'oauth' });
  });
});
