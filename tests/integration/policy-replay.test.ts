// Policy you can test (docs/audit.md "Policy you can test"), and the audit you can prove
// ("Tamper-evident audit"), on a session recorded by a real gateway in front of a real server
// (server-everything) driven by an SDK client: a shadow rule is recorded as "would deny" and
// changes nothing; `policy test` with a changed rule names exactly the calls it affects; the
// store the gateway wrote verifies, and stops verifying after one row is edited from outside.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host, type Launch } from '../../main/host';
import { openSecretStore } from '../../main/auth/secret-store';
import { AUDIT_KEY_NAME, signerFromPem, verifierFromPublicPem } from '../../main/audit/audit-key';
import { auditDbFile, openAuditStore } from '../../main/audit/store';
import { formatPolicyTest, policyTest } from '../../main/cli/policy-command';
import { tempDir, writeProfile } from '../support/temp';
import { connectHttp, textOf } from '../support/gateway';

const PROFILE = `
name: replay-test
workspace: ./ws
servers:
  everything:
    command: mcp-server-everything
    args: ["stdio"]
policy:
  default: deny
  rules:
    - { match: "everything.echo", args: { message: { pattern: "secret.*" } }, decision: deny, shadow: true }
    - { match: ["everything.echo", "everything.get-sum"], decision: allow }
`;

// The changed policy: echo of "hello…" is now denied; nothing else changes.
const CHANGED = `
policy:
  default: deny
  rules:
    - { match: "everything.echo", args: { message: { pattern: "hello.*" } }, decision: deny }
    - { match: ["everything.echo", "everything.get-sum"], decision: allow }
`;

let tmp: ReturnType<typeof tempDir>;
let profileFile: string;
let dataDir: string;
const env = { ...process.env, GATEHOUSE_SECRET_STORE: 'file' };
const replies: Record<string, string> = {};

beforeAll(async () => {
  tmp = tempDir();
  profileFile = writeProfile(tmp.dir, PROFILE);
  dataDir = path.join(tmp.dir, 'data');
  const host = new Host({ dataDir, env });
  let launch: Launch | undefined;
  try {
    launch = await host.launch(profileFile, { httpPort: 0, token: 'replay-token-1234567890' });
    const c = await connectHttp(launch);
    for (const message of ['hello one', 'secret stuff', 'bye', 'hello two']) {
      replies[message] = textOf(await c.callTool({ name: 'echo', arguments: { message } }));
    }
    replies.sum = textOf(await c.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }));
    replies.env = textOf(await c.callTool({ name: 'get-env', arguments: {} }));
    await c.close();
  } finally {
    await host.shutdown();
  }
}, 90_000);

afterAll(() => tmp?.cleanup());

describe('shadow rules and policy test on a recorded gateway session', () => {
  it('a shadow rule is recorded as "would deny" and changes nothing', () => {
    expect(replies['secret stuff']).toContain('secret stuff'); // the call went through
    expect(replies.env).toMatch(/^DENY: /);
    const store = openAuditStore({ dataDir, retention: false });
    try {
      const echo = store.queryDecisions({ tool: 'everything.echo' });
      expect(echo.map((d) => d.decision)).toEqual(['ALLOW', 'ALLOW', 'ALLOW', 'ALLOW']);
      const shadowed = echo.filter((d) => d.reason?.includes('shadow policy.rules[0] would deny'));
      expect(shadowed.map((d) => (d.args as { message: string }).message)).toEqual(['secret stuff']);
      // The call's row (what Traffic shows) carries it too.
      const calls = store.queryCalls({ tool: 'everything.echo', outcome: 'ok' });
      expect(calls.filter((c) => c.reason?.includes('would deny'))).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('policy test with a changed rule reports exactly the calls it affects', () => {
    const changed = path.join(tmp.dir, 'changed.yaml');
    fs.writeFileSync(changed, CHANGED);
    const r = policyTest({ profile: profileFile, policyFile: changed, dataDir, env });
    expect(r.replayed).toBe(6);
    expect(r.changed.map((c) => [(c.call.args as { message: string }).message, c.before.decision, c.after.decision, c.after.rule])).toEqual([
      ['hello one', 'ALLOW', 'DENY', 'policy.rules[0]'],
      ['hello two', 'ALLOW', 'DENY', 'policy.rules[0]'],
    ]);
    expect(r.totals).toEqual({ 'ALLOW → DENY': 2 });
    expect(formatPolicyTest(r)).toMatch(/6 calls of profile replay-test replayed .*; 2 would change \(ALLOW → DENY: 2\)/);

    // The profile's own policy, replayed: nothing changes, and its shadow rule is reported.
    const same = policyTest({ profile: profileFile, dataDir, env });
    expect(same.changed).toEqual([]);
    expect(same.shadowed.map((s) => (s.call.args as { message: string }).message)).toEqual(['secret stuff']);
    expect(formatPolicyTest(same)).toContain('shadow policy.rules[0] would deny (not enforced)');
  });

  it('the store the gateway wrote verifies against the install key, and names a message edited with sqlite3', () => {
    const pem = openSecretStore({ dataDir, env }).get(AUDIT_KEY_NAME);
    expect(pem, 'the host made its audit key in the secret store').toBeTruthy();
    const verifier = verifierFromPublicPem(signerFromPem(pem!).publicKeyPem);
    const verify = () => {
      const store = openAuditStore({ dataDir, retention: false });
      try {
        return store.verify(verifier);
      } finally {
        store.close();
      }
    };
    const ok = verify();
    expect(ok.ok, JSON.stringify(ok.chains.map((c) => c.problems))).toBe(true);
    const session = ok.chains.find((c) => c.rows > 0)!;
    expect(session.signedThrough).toBe(session.rows); // the gateway's session end is signed
    const seq = execFileSync('sqlite3', [auditDbFile(dataDir), `SELECT seq FROM messages WHERE message LIKE '%secret stuff%' ORDER BY seq LIMIT 1`]).toString().trim();
    execFileSync('sqlite3', [auditDbFile(dataDir), `UPDATE messages SET message = replace(message, 'secret stuff', 'nothing here') WHERE seq = ${seq}`]);
    const bad = verify();
    expect(bad.ok).toBe(false);
    expect(bad.chains.flatMap((c) => c.problems)[0]).toMatchObject({ kind: 'edited', table: 'messages', seq: Number(seq) });
  });
});
