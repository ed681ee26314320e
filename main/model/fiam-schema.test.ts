// The FIAM reader: the specimen reads, and what breaks the specimen's shape is refused with a
// message naming where and what was expected.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { fiamKinds, readFiam } from './fiam-schema';

const SPECIMEN = readFileSync(path.resolve(__dirname, '../../tests/fixtures/contracts/fiam-specimen.yaml'), 'utf8');

function mutate(fn: (doc: any) => void): string {
  const doc = parse(SPECIMEN);
  fn(doc);
  return stringify(doc);
}

describe('readFiam', () => {
  it('reads the specimen, with every kind it uses', () => {
    const doc = readFiam(SPECIMEN, 'specimen');
    expect(doc.nodes.map((n) => n.id)).toEqual(['node.agent-host', 'node.mcp-server']);
    const kinds = fiamKinds(doc);
    expect([...kinds.evidence_mode!]).toEqual(['fiam.evidence.declared', 'fiam.evidence.inferred']);
    expect([...kinds.realization_status!]).toEqual(['fiam.interaction-status.executed']);
    expect(kinds.assertion!.size).toBe(8);
  });

  it('refuses a reference to nothing, or to the wrong kind of thing', () => {
    expect(() => readFiam(mutate((d) => (d.ports[0].owner = 'node.nobody')))).toThrow(/ports\.0\.owner: node\.nobody is not defined \(expected one of the nodes\)/);
    expect(() => readFiam(mutate((d) => (d.bindings[0].provider_port = 'node.mcp-server')))).toThrow(/bindings\.0\.provider_port: node\.mcp-server is one of the nodes, expected one of the ports/);
    expect(() => readFiam(mutate((d) => (d.interactions[1].operation = 'contract.mcp.tools')))).toThrow(/interactions\.1\.operation/);
    expect(() => readFiam(mutate((d) => (d.assertions[2].object_ref = 'shape.none')))).toThrow(/assertions\.2\.object_ref/);
  });

  it('refuses unknown keys, bad terms, duplicate ids and observed evidence without observations', () => {
    expect(() => readFiam(mutate((d) => (d.nodes[0].colour = 'red')))).toThrow(/nodes\.0: Unrecognized key/);
    expect(() => readFiam(mutate((d) => (d.nodes[0].node_type = 'application')))).toThrow(/expected a FIAM term like fiam\.protocol\.mcp, got "application"/);
    expect(() => readFiam(mutate((d) => (d.nodes[1].id = 'node.agent-host')))).toThrow(/duplicate id node\.agent-host/);
    expect(() => readFiam(mutate((d) => (d.assertions[0].evidence.mode = 'fiam.evidence.observed')))).toThrow(/observed evidence carries `observed`/);
    expect(() => readFiam(mutate((d) => (d.fiam_version = '0.3')))).toThrow(/fiam_version/);
    expect(() => readFiam('nodes: [unclosed')).toThrow(/not YAML/);
  });
});
