// Stored and shown traffic never holds a detected credential in clear (docs/data.md): the tap
// records both legs of a call, and the server's leg arrives before the call pipeline has scanned
// the result. Every tapped message passes the rules' prefilter (sync, per string); the rare one
// that might hold a credential is scanned and published with each credential masked
// (`«credential:RULE»`), a few hundred µs later and so perhaps after a later message. Configured
// secrets were already redacted by the tap's Redactor. A scan that fails publishes a stand-in,
// never the clear message.
import { DataScanner, mayHoldCredentialsOnce, maskCredentials } from './scanner';
import { Redactor } from '../secrets/redactor';

// Credentials only: configured secrets are the launch's Redactor's job, done before this runs.
const scanner = new DataScanner(new Redactor());

/** undefined: publish `record` as it is; else the record to publish once it has been scanned. */
export function screenRecord<T extends { message: unknown }>(record: T): Promise<T> | undefined {
  // Once per message: a message the outbound screen (or an earlier leg) cleared is not walked again.
  if (!mayHoldCredentialsOnce(record.message)) return undefined;
  return scanner.scan(record.message, 'result').then(
    (findings) => (findings.length === 0 ? record : { ...record, message: maskCredentials(record.message, findings) }),
    (err: unknown) => ({ ...record, message: { 'gatehouse/unscanned': `the data scanner failed on this message: ${(err as Error).message}` } }),
  );
}
