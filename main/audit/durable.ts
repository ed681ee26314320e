// No answered call missing after a crash of the host (docs/audit.md "Audit store"). The tap delivers an agent's
// answer to the audit writer synchronously (BoundedBus `flushOn`), and the writer makes it, with
// every row queued before it, crash-safe before the transport writes the answer: the window of
// loss is zero. How depends on the writer (AuditWriter.commitPoint): the threaded writer appends
// the pending chunk to its crash journal with one write(2) (journal.ts; replayed at the next
// open), the in-thread writer commits to SQLite (WAL, synchronous = NORMAL). Either survives a
// killed process (the bytes are in the OS page cache); only an OS crash or power cut can lose them.
//
// GATEHOUSE_AUDIT_DURABLE_ANSWERS=0 trades the guarantee back for batching.
import type { TrafficEvent } from '../protocol/types';
import type { AuditWriter } from './writer';

/** An answer to the agent: the moment an answered call must be on record. */
export function isAgentAnswer(ev: TrafficEvent): boolean {
  return ev.direction === 'gateway_to_agent' && (ev.kind === 'response' || ev.kind === 'error');
}

/** The tap subscriber: queues the batch, and commits at once when it holds an agent's answer. */
export function durableAuditSink(writer: Pick<AuditWriter, 'trafficBatch'> & { flush(): void }, durable = true): (batch: TrafficEvent[]) => void {
  return (batch) => {
    writer.trafficBatch(batch);
    if (durable && batch.some(isAgentAnswer)) writer.flush();
  };
}
