// The imported profile as YAML, with the comments a person needs before launching it: where it
// came from, which secrets to set, and what was left behind.
import { pathToFileURL } from 'node:url';
import { Document, isMap, isScalar, visit, type YAMLMap } from 'yaml';
import type { ImportResult } from './types';

export interface RenderOptions {
  /** Absolute path of the source file. */
  source: string;
  /** Client label ("Claude Code"). */
  label: string;
  /** Import date (tests pass a fixed one). */
  date: Date;
  /** Absolute path of profile.schema.json, for editors that understand the first line. */
  schemaFile?: string;
}

export function renderProfileYaml(result: ImportResult, opts: RenderOptions): string {
  const doc = new Document(result.profile);
  const head: string[] = [];
  if (opts.schemaFile) head.push(` yaml-language-server: $schema=${pathToFileURL(opts.schemaFile).href}`, '');
  head.push(` Imported by \`gatehouse profiles import\` from ${opts.source}`, ` (${opts.label}) on ${opts.date.toISOString().slice(0, 10)}.`);
  head.push(' Review it, then `gatehouse profiles validate --resolve <this file>`.');
  if (result.secrets.length) {
    head.push('', ' Secrets this profile needs (their values were NOT copied from the source):');
    const width = Math.max(...result.secrets.map((s) => s.name.length)) + 'GATEHOUSE_SECRET_'.length;
    for (const s of result.secrets) {
      head.push(`   ${`GATEHOUSE_SECRET_${s.name}`.padEnd(width)}  from ${s.from}${s.description ? ` (${s.description})` : ''}`);
    }
  }
  if (result.warnings.length) {
    head.push('', ' Not imported as is:');
    for (const w of result.warnings) head.push(`   - ${w}`);
  }

  const root = doc.contents as YAMLMap;
  const renamed = new Map(Object.entries(result.serverIds).filter(([name, id]) => name !== id).map(([name, id]) => [id, name]));
  for (const pair of root.items) {
    if (!isScalar(pair.key)) continue;
    if (['servers', 'policy', 'aliases'].includes(String(pair.key.value))) pair.key.spaceBefore = true;
    if (pair.key.value === 'servers' && isMap(pair.value)) {
      for (const server of pair.value.items) {
        if (!isScalar(server.key)) continue;
        const original = renamed.get(String(server.key.value));
        if (original !== undefined) server.key.commentBefore = ` "${original}" in the source`;
        if (server !== pair.value.items[0]) server.key.spaceBefore = true;
      }
    }
    if (pair.key.value === 'policy') {
      pair.key.commentBefore = ' Calls no rule matches ask a person first; the first matching rule decides.';
    }
  }
  // Lists of plain strings (args, inherit_env, rule matches) read best on one line, as in demo.yaml.
  visit(doc, {
    Seq(_key, node) {
      if (node.items.every((i) => isScalar(i))) node.flow = true;
    },
  });
  const header = head.map((l) => `#${l}`.trimEnd()).join('\n');
  return `${header}\n\n${doc.toString({ lineWidth: 0, flowCollectionPadding: false })}`;
}
