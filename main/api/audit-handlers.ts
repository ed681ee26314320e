// Host-API commands that read the audit store (main/audit/): traffic history beyond the live
// buffer, the Audit view's sessions, search and calls, trust decisions, and the FIAM export
// with observed traffic. Every read sees the host's own writes: the store flushes first.
import { DEFAULT_BATCH_INTERVAL_MS } from '../protocol/bounded-bus';
import { exportModel } from '../model/export-model';
import { findSnippet } from '../audit/snippet';
import type { Host, Launch } from '../host';
import { HostApiError, type Handlers } from './errors';
import { exportAudit } from './audit-export';
import { storedTraffic } from './shapes';

export function auditHandlers(host: Host, launchOf: (launchId: string) => Launch) {
  return {
    'traffic:history': (input) => {
      const audit = host.audit;
      if (!audit) return [];
      audit.flush(); // what the tap saw a moment ago is still in the writer's queue
      return audit
        .queryMessages({ session: input.session, beforeSeq: input.beforeSeq, limit: input.limit ?? 500, latest: true })
        .map(storedTraffic);
    },

    'audit:sessions': (input) => {
      const audit = host.audit;
      if (!audit) return [];
      audit.flush();
      return audit.listSessions({ limit: input.limit ?? 100 }).map((s) => ({ ...s }));
    },

    'audit:query': (input) => {
      const audit = host.audit;
      if (!audit) return { messages: [], decisions: [], calls: [] };
      audit.flush();
      const base = { session: input.session, server: input.server, text: input.text, since: input.since, until: input.until, limit: input.limit ?? 200, latest: true };
      // With a text search, each row carries the part that matched (main/audit/snippet.ts), in
      // the columns the store searched.
      const q = input.text;
      return {
        messages: audit.queryMessages({ ...base, method: input.method }).map((m) => ({
          ...m,
          ...(q ? { snippet: findSnippet([['method', m.method], ['message', m.message], ['fault', m.fault]], q) } : {}),
        })),
        decisions: audit.queryDecisions(base).map((d) => ({
          ...d,
          ...(q ? { snippet: findSnippet([['tool', d.tool], ['reason', d.reason], ['outcome', d.outcome], ['args', d.args]], q) } : {}),
        })),
        calls: audit.queryCalls({ ...base, group: input.group }).map((c) => ({ ...c })),
        callsTotal: audit.countCalls({ ...base, group: input.group }),
      };
    },

    'audit:calls': (input) => {
      const audit = host.audit;
      if (!audit) return [];
      audit.flush();
      return audit
        .queryCalls({ session: input.session, text: input.text, outcome: input.outcome, decidedBy: input.decidedBy, limit: input.limit ?? 200, latest: true })
        .map((c) => ({ ...c, kind: c.kind === 'server_request' ? ('server_request' as const) : ('call' as const) }));
    },

    'model:export': async (input) => {
      const launch = launchOf(input.launchId);
      // The audit writer drains the traffic tap in batches every DEFAULT_BATCH_INTERVAL_MS (25 ms):
      // two intervals let a call answered just before the click reach the store it reads.
      if (input.observed) await new Promise((r) => setTimeout(r, 2 * DEFAULT_BATCH_INTERVAL_MS));
      const { fileName, yaml } = exportModel(launch, { observed: input.observed ?? false, audit: host.audit });
      return { fileName, yaml };
    },

    'audit:export': async (input) => {
      const audit = host.audit;
      if (!audit) throw new HostApiError(`the audit store is off (${host.auditOff ?? 'not opened'}): nothing to export`);
      return exportAudit(audit, input);
    },

    'audit:trust': (input) => host.audit?.queryTrustDecisions({ profile: input.profile, limit: input.limit ?? 200 }) ?? [],
  } satisfies Partial<Handlers>;
}
