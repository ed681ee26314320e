// The TrustStore as a command-line process uses it: decisions go to the same audit store the
// host writes (WAL mode, several processes at once), and `by` names the user at this terminal.
import os from 'node:os';
import { openAuditStore, type AuditStore } from '../audit/store';
import { TrustStore } from '../trust/pin-store';

export function openCliTrustStore(dataDir: string): { store: TrustStore; audit: AuditStore | undefined; close: () => void } {
  let audit: AuditStore | undefined;
  try {
    audit = openAuditStore({ dataDir, retention: false });
  } catch (err) {
    process.stderr.write(`gatehouse trust: audit store unavailable (${(err as Error).message}); decisions are not recorded\n`);
  }
  const store = new TrustStore(dataDir, audit ? (d) => audit.recordTrustDecision(d) : undefined);
  return { store, audit, close: () => audit?.close() };
}

/** Who decided, for the audit trail: the local user, at the command line. */
export function cliActor(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {}
  return `cli:${user}`;
}
