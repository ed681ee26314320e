// The FIAM export of a launched workspace: declared facts from the launch (what its servers
// answered, what its gateway serves), observed facts from the audit store when asked, checked
// against the same reader the specimen passes before anyone gets to see it.
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import type { AuditStore } from '../audit/store';
import { buildFiam } from './build-fiam';
import { FiamDocumentSchema, readFiam, type FiamDocument } from './fiam-schema';
import { modelInputFromLaunch, type LaunchFacts } from './model-input';
import { readObservations } from './observations';

export interface ExportModelOptions {
  /** Add what the audit store saw (`realization_status: executed`, `mode: observed` evidence). */
  observed?: boolean;
  /** The store to read observations from (required with `observed`). */
  audit?: AuditStore;
  /** Which launch sessions to read; default the 50 most recent of this profile. */
  sessions?: string[];
  /** The gateway is served over stdio (`gatehouse gateway`). */
  gatewayStdio?: boolean;
  now?: Date;
}

export interface ExportedModel {
  yaml: string;
  document: FiamDocument;
  /** A file name for it: `<profile>.fiam.yaml`. */
  fileName: string;
}

export function exportModel(launch: LaunchFacts, opts: ExportModelOptions = {}): ExportedModel {
  if (opts.observed && !opts.audit) throw new Error('observed facts need the audit store, and it is off (started with --no-audit, or better-sqlite3 could not load)');
  const input = modelInputFromLaunch(launch, { gatewayStdio: opts.gatewayStdio, protocolVersion: LATEST_PROTOCOL_VERSION, now: opts.now });
  if (opts.observed && opts.audit) {
    input.observations = readObservations(opts.audit, { profile: launch.profile.name, ...(opts.sessions ? { sessions: opts.sessions } : {}) });
  }
  const document = buildFiam(input);
  // Fail here, with the reader's message, rather than hand out a model the specimen's reader refuses.
  const checked = FiamDocumentSchema.safeParse(document);
  if (!checked.success) throw new Error(`internal error: the FIAM export does not pass its own reader: ${checked.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const yaml = `# FIAM v0.2 model of Gatehouse workspace '${launch.profile.name}', exported by gatehouse model export (docs/fiam.md).\n${stringify(document, { lineWidth: 0, aliasDuplicateObjects: false })}`;
  readFiam(yaml, 'the FIAM export'); // round trip: what is written reads back
  return { yaml, document, fileName: `${launch.profile.name}.fiam.yaml` };
}
