// FIAM export (docs/fiam.md): the demo profile after a real read_file call, exported by the real CLI
// (`gatehouse model export --observed`) and by the window's host API, read back by the same reader
// as the FIAM specimen, and checked to use every kind the specimen uses, with the call `executed`
// and `mode: observed` evidence citing the audit session and exchange.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHostApiDispatcher } from '../../main/api/dispatcher';
import { Host, type Launch } from '../../main/host';
import { fiamKinds, readFiam, type FiamDocument } from '../../main/model/fiam-schema';
import { repoRoot } from '../support/supervisor';
import { tempDir } from '../support/temp';

// The contract lives beside the clone (read-only); the repo keeps a copy so the tests run anywhere.
const SHARED_SPECIMEN = path.resolve(repoRoot, '..', 'shared', 'contracts', 'fiam-specimen.yaml');
const FIXTURE_SPECIMEN = path.join(repoRoot, 'tests', 'fixtures', 'contracts', 'fiam-specimen.yaml');
const DEMO = path.join(repoRoot, 'workspace-profiles', 'demo.yaml');
const README = readFileSync(path.join(repoRoot, 'workspace-profiles', 'demo-workspace', 'README.md'), 'utf8');

let tmp: ReturnType<typeof tempDir>;
let dataDir: string;
let host: Host;
let launch: Launch;
let exchange: string;
let agentSession: string;

beforeAll(async () => {
  tmp = tempDir('gatehouse-fiam-');
  dataDir = path.join(tmp.dir, 'data');
  host = new Host({ dataDir });
  launch = await host.launch(DEMO, { httpPort: 0, token: 'fiam-test-token-0123456789' });
  const client = new Client({ name: 'fiam-test-agent', version: '1.2.3' });
  await client.connect(new StreamableHTTPClientTransport(new URL(launch.endpoint!.url), { requestInit: { headers: { Authorization: `Bearer ${launch.token}` } } }));
  const result = await client.callTool({ name: 'read_file', arguments: { file_path: 'README.md' } });
  expect(result.isError).toBeFalsy();
  await client.close();
  // The tap reaches the audit writer in batches (every ~25 ms): wait until the upstream call and its
  // answer are stored, so the CLI (another process) reads them.
  for (;;) {
    host.audit!.flush();
    const rows = host.audit!.queryMessages({ session: launch.id, method: 'tools/call', direction: 'server_to_gateway' });
    if (rows.length > 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const [decision] = host.audit!.queryDecisions({ session: launch.id, tool: 'fs.read' });
  exchange = decision!.exchange!;
  agentSession = decision!.agentSession!;
}, 90_000);

afterAll(async () => {
  await host?.shutdown();
  tmp?.cleanup();
});

function specimen(): FiamDocument {
  return readFiam(readFileSync(FIXTURE_SPECIMEN, 'utf8'), 'the FIAM specimen');
}

/** Every kind the specimen uses, category by category, is used by `doc` too. */
function expectKindsOfSpecimen(doc: FiamDocument): void {
  const want = fiamKinds(specimen());
  const have = fiamKinds(doc);
  for (const [category, kinds] of Object.entries(want)) {
    const missing = [...kinds].filter((k) => !have[category]?.has(k));
    expect(missing, `export lacks ${category} kinds the specimen uses`).toEqual([]);
  }
}

function runCli(args: string[]) {
  return spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'gatehouse'), 'model', 'export', ...args], { encoding: 'utf8', timeout: 120_000, cwd: tmp.dir });
}

describe('the FIAM specimen', () => {
  it('the copy in tests/fixtures is the contract itself', () => {
    // In CI the shared folder sits beside the clone; when it does, the copy must be identical.
    if (!existsSync(SHARED_SPECIMEN)) {
      console.warn(`${SHARED_SPECIMEN} is not there; the copy in tests/fixtures/contracts is used as is`);
      return;
    }
    expect(readFileSync(FIXTURE_SPECIMEN, 'utf8'), `tests/fixtures/contracts/fiam-specimen.yaml differs from ${SHARED_SPECIMEN}; copy it again`).toBe(readFileSync(SHARED_SPECIMEN, 'utf8'));
  });

  it('reads with the reader the export is checked with', () => {
    expect(specimen().fiam_version).toBe('0.2');
  });
});

describe('gatehouse model export', () => {
  it('--observed: the read_file call is executed, with observed evidence citing the audit session and exchange', async () => {
    const out = path.join(tmp.dir, 'demo.fiam.yaml');
    const r = runCli(['--profile', DEMO, '--observed', '--data-dir', dataDir, '-o', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`wrote ${out}`);
    const doc = readFiam(readFileSync(out, 'utf8'), 'the export');
    expectKindsOfSpecimen(doc);
    expect(fiamKinds(doc).evidence_mode).toEqual(new Set(['fiam.evidence.declared', 'fiam.evidence.inferred', 'fiam.evidence.observed']));

    // Nodes: Gatehouse, the agent session that called, each server as a process.
    const nodes = Object.fromEntries(doc.nodes.map((n) => [n.id, n]));
    expect(nodes['node.gatehouse']?.node_type).toBe('fiam.node-type.application');
    expect(Object.values(nodes).find((n) => n.name.includes('fiam-test-agent 1.2.3'))?.node_type).toBe('fiam.node-type.application');
    for (const s of ['workspace', 'files', 'memory']) expect(nodes[`node.server.${s}`]?.node_type).toBe('fiam.node-type.process');

    // The read_file tool: a contract embedded in tools/call, its input and output shapes from the schemas.
    const contract = doc.contracts.find((c) => c.id === 'contract.tool.workspace.fs-read')!;
    expect(contract.operations).toEqual([{ id: 'operation.tool.workspace.fs-read', name: 'fs.read', interaction_style: 'fiam.interaction-style.rpc' }]);
    expect(contract.description).toContain('read_file');
    const args = doc.information_shapes.find((s) => s.id === 'shape.tool.workspace.fs-read.args')!;
    expect(args.schema).toMatchObject({ type: 'object', required: ['file_path'] });
    const result = doc.information_shapes.find((s) => s.id === 'shape.tool.workspace.fs-read.result')!;
    expect(JSON.stringify(result.schema)).toContain('chars_read');

    // The binding the specimen names, with its stack, addressing and session model.
    const binding = doc.bindings.find((b) => b.id === 'binding.workspace')!;
    expect(binding).toMatchObject({
      binding_profile: 'fiam.binding-profile.mcp-stdio',
      addressing: { kind: 'fiam.addressing.process-spawn' },
      session_model: 'fiam.session.long-lived-process',
      provider_port: 'port.server.workspace.mcp',
      consumer_ports: ['port.gatehouse.upstream.workspace'],
    });
    expect(binding.addressing.value).toMatch(/workspace-tools --workspace .*demo-workspace/);
    const gateway = doc.bindings.find((b) => b.id === 'binding.gateway.streamable-http')!;
    expect(gateway.binding_profile).toBe('fiam.binding-profile.mcp-streamable-http');
    expect(gateway.session_model).toBe('fiam.session.mcp-session-id');

    // Executed, with observed evidence: count 1, the session and the exchange of the call.
    const interaction = doc.interactions.find((x) => x.id === 'interaction.tool.workspace.fs-read')!;
    expect(interaction).toMatchObject({ realization_status: 'fiam.interaction-status.executed', participants: { initiator: 'node.gatehouse', responder: 'node.server.workspace' } });
    const actual = doc.assertions.find((a) => a.id === 'assertion.tool.workspace.fs-read.actual-input')!;
    expect(actual).toMatchObject({ subject: interaction.id, predicate: 'fiam.relation.accepts-shape', object_ref: args.id });
    expect(actual.evidence.mode).toBe('fiam.evidence.observed');
    expect(actual.evidence.source).toContain(path.join(dataDir, 'gatehouse.db'));
    expect(actual.evidence.observed).toMatchObject({ count: 1, sessions: [launch.id], first: { session: launch.id, exchange, agent_session: agentSession } });
    expect(actual.evidence.observed!.first_seen).toBe(actual.evidence.observed!.last_seen);
    // Declared facts keep `declared`; a tool nobody called is not executed.
    expect(doc.assertions.find((a) => a.id === 'assertion.tool.workspace.fs-read.accepts')!.evidence.mode).toBe('fiam.evidence.declared');
    expect(doc.interactions.find((x) => x.id === 'interaction.tool.workspace.fs-write')!.realization_status).toBeUndefined();
    expect(doc.assertions.some((a) => a.id.startsWith('assertion.tool.workspace.fs-write.actual'))).toBe(false);
    // Nothing the export writes carries the file's content or the gateway token.
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain(README.slice(0, 40));
    expect(text).not.toContain(launch.token!);
  }, 120_000);

  it('without --observed: only declared and inferred facts, nothing executed', () => {
    const r = runCli(['--profile', DEMO, '--data-dir', dataDir]);
    expect(r.status, r.stderr).toBe(0);
    const doc = readFiam(r.stdout, 'the export on stdout');
    const kinds = fiamKinds(doc);
    expect(kinds.evidence_mode).toEqual(new Set(['fiam.evidence.declared', 'fiam.evidence.inferred']));
    expect(kinds.realization_status).toBeUndefined();
    expect(doc.contracts.filter((c) => c.id.startsWith('contract.tool.workspace.')).map((c) => c.operations[0]!.name).sort()).toEqual(
      ['fs.read', 'fs.write', 'net.http_request', 'process.exec', 'repo.apply_patch', 'repo.validate_change_set'],
    );
  }, 120_000);

  it('says what is wrong: no profile, --session without --observed, no audit database', () => {
    expect(runCli([]).stderr).toMatch(/--profile is required/);
    expect(runCli(['--profile', DEMO, '--session', 'x']).stderr).toMatch(/--session picks the sessions --observed reads/);
    const empty = runCli(['--profile', DEMO, '--observed', '--data-dir', path.join(tmp.dir, 'nothing-here')]);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/--observed: no audit database at .*nothing-here/);
  }, 120_000);
});

describe('Export model in the window (host API model:export)', () => {
  it('exports the live launch with what was observed', async () => {
    const api = createHostApiDispatcher(host, { shell: 'web', validateOutput: true });
    try {
      const out = (await api.handle('model:export', { launchId: launch.id, observed: true })) as { fileName: string; yaml: string };
      expect(out.fileName).toBe('demo.fiam.yaml');
      const doc = readFiam(out.yaml, 'the window export');
      expectKindsOfSpecimen(doc);
      const actual = doc.assertions.find((a) => a.id === 'assertion.tool.workspace.fs-read.actual-output')!;
      expect(actual.evidence.observed).toMatchObject({ count: 1, first: { exchange } });
      // The live agent session the call came from is a node of the model.
      expect(doc.nodes.some((n) => n.description === `agent session ${agentSession}`)).toBe(true);
      await expect(api.handle('model:export', { launchId: 'nope' })).rejects.toThrow(/no running launch 'nope'/);
    } finally {
      api.close();
    }
  });
});
