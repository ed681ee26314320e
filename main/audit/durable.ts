// No answered call missing after a crash of the host (issue 11). The writer batches rows every
// ~25 ms, so a SIGKILL used to lose the last ~65 ms of answered calls. Now the tap delivers an
// agent's answer to the audit writer synchronously (BoundedBus `flushOn`), and the writer commits
// it, with every row queued before it, before the transport writes the answer: the window of
// loss is zero. The commit is a WAL append without fsync (synchronous = NORMAL), which a killed
// process cannot lose (the bytes are in the OS page cache); only an OS crash or power cut can,
// and for that FULL would be needed (documented in docs/gateway.md).
//
// The price: the protocol path now waits for one small SQLite commit per answered call (~40 µs
// here; measured p99 ~15 ms when a WAL checkpoint lands on it, and more when other processes
// keep the disk busy). GATEHOUSE_AUDIT_DURABLE_ANSWERS=0 trades the guarantee back for batching.
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
