// A server the launch gate keeps stopped (docs/trust.md, "Held servers, as the agent sees
// them"): the agent's call to one of its pinned tools is answered `DENY: server X waits for
// launch approval (…)`, not "Unknown tool", and the capabilities tool lists its pinned tools as
// unavailable with `trust_review`. Real host, real fixture server, real pin file; the in-process
// test approver is off, so the person's approval is the real one (trust.decide).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../main/host';
import { setTestApprover } from '../../main/trust/launch-consent';
import { connectHttp, textOf, waitFor } from '../support/gateway';
import { serverFixture } from '../support/supervisor';
import { tempDir, writeProfile } from '../support/temp';

let tmp: ReturnType<typeof tempDir>;
const hosts: Host[] = [];

beforeAll(() => {
  setTestApprover(undefined);
  tmp = tempDir('gh-held-');
});
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.shutdown()));
  setTestApprover('test-setup');
  tmp?.cleanup();
});

function profile(extraEnv: Record<string, string>): string {
  return writeProfile(
    tmp.dir,
    JSON.stringify({
      name: 'held',
      workspace: './ws',
      policy: { default: 'allow' },
      servers: {
        dict: { command: process.execPath, args: [serverFixture('trust-server.mjs')], env: { TRUST_WATCH: '0', ...extraEnv } },
        other: { command: process.execPath, args: [serverFixture('trust-server.mjs')], env: { TRUST_WATCH: '0' } },
      },
    }),
    'held.yaml',
  );
}

describe('a server held for launch approval', () => {
  it('answers the call with why, and is listed in capabilities with its pinned tools', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const file = profile({});
    // First launch: a person approves both; their first listing pins their tools.
    const first = new Host({ dataDir, stdinGraceMs: 300, termGraceMs: 500 });
    hosts.push(first);
    const l1 = await first.launch(file, { httpPort: 0 });
    for (const id of ['dict', 'other']) await l1.trust.decide({ server: id, choice: 'approve', by: 'test-person' });
    await waitFor(() => l1.statuses().every((s) => s.state === 'ready'), 'both ready');
    const pins = () => JSON.parse(fs.readFileSync(path.join(dataDir, 'trust', 'held.json'), 'utf8'));
    await waitFor(() => pins().servers.dict.tools?.lookup, 'dict.lookup pinned');
    await first.shutdown();

    // The launch command of dict changes: it is held at the gate, other starts.
    profile({ TRUST_EXTRA_TOOL: '1' });
    const second = new Host({ dataDir, stdinGraceMs: 300, termGraceMs: 500 });
    hosts.push(second);
    const l2 = await second.launch(file, { httpPort: 0 });
    await waitFor(() => l2.supervisor.get('other')!.status().state === 'ready', 'other ready');
    expect(l2.supervisor.get('dict')!.status().state).toBe('stopped');
    const client = await connectHttp(l2);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).not.toContain('dict_lookup');
      for (const name of ['dict_lookup', 'dict.lookup']) {
        const res = await client.callTool({ name, arguments: { word: 'gate' } });
        expect(res.isError).toBe(true);
        expect(textOf(res)).toMatch(/^DENY: server dict waits for launch approval \(launch command changed \(envNames\); a person approves it in the Gatehouse window or with `gatehouse trust accept --profile held --server dict`\)$/);
      }
      // A name of that server's that no pin knows is explained the same way.
      expect(textOf(await client.callTool({ name: 'dict_extra', arguments: {} }))).toMatch(/^DENY: server dict waits for launch approval/);
      // The other server's tool with the same own name is not affected.
      expect(textOf(await client.callTool({ name: 'other_lookup', arguments: { word: 'gate' } }))).toBe('definition of gate');

      const caps = (await client.callTool({ name: 'gatehouse_capabilities', arguments: {} })).structuredContent as {
        tool_states: Array<{ name: string; status: string; reason_code?: string; reason?: string }>;
      };
      const held = caps.tool_states.find((t) => t.name === 'dict.lookup');
      expect(held).toMatchObject({ status: 'unavailable', reason_code: 'trust_review' });
      expect(held!.reason).toContain('server dict waits for launch approval');

      const d = await waitFor(() => (second.audit!.flush(), second.audit!.queryDecisions({ session: l2.id }).find((r) => r.tool === 'dict.lookup')), 'the denial in the audit');
      expect(d).toMatchObject({ decision: 'DENY', outcome: 'denied', server: 'dict' });
    } finally {
      await client.close();
    }
  });
});

