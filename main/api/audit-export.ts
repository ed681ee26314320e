// The Audit view's export: the same JSON Lines `gatehouse audit export --jsonl` writes (one row
// per line, oldest first, from AuditStore.exportJsonl), gathered in memory for a download.
// Bounded: past MAX_EXPORT_BYTES the export is refused with the CLI line that does it to a file.
import { Writable } from 'node:stream';
import type { CommandInput, CommandOutput } from '../../common/host-api';
import type { AuditStore } from '../audit/store';
import { HostApiError } from './errors';

/** A download a window can hold comfortably; the CLI streams anything larger to a file. */
const MAX_EXPORT_BYTES = 64 * 1024 * 1024;

export async function exportAudit(audit: AuditStore, input: CommandInput<'audit:export'>): Promise<CommandOutput<'audit:export'>> {
  audit.flush();
  const stream = input.stream ?? 'messages';
  const chunks: string[] = [];
  let size = 0;
  let over = false;
  const out = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      size += chunk.length;
      if (size > MAX_EXPORT_BYTES) {
        over = true;
        done(new Error('too large'));
        return;
      }
      chunks.push(chunk.toString());
      done();
    },
  });
  let count: number;
  try {
    count = await audit.exportJsonl({ session: input.session, text: input.text }, out, stream);
  } catch (err) {
    if (!over) throw err;
    const flag = stream === 'messages' ? '' : ` --${stream}`;
    throw new HostApiError(
      `the export is larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MB: run \`gatehouse audit export --jsonl${flag}${input.session ? ` --session ${input.session}` : ''} --out FILE\` instead`,
    );
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const fileName = `gatehouse-audit-${stream}${input.session ? `-${input.session.slice(0, 8)}` : ''}-${stamp}.jsonl`;
  return { fileName, text: chunks.join(''), count };
}
