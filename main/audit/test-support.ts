// Shared by the audit tests (not a test itself): temp data dirs and event builders.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StderrLine, TrafficEvent } from '../protocol/types';
import { openAuditStore, type AuditStore, type AuditStoreCommonOptions } from './store';

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-audit-'));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A store for tests: retention off unless asked, errors collected instead of printed. */
export function openTestStore(dir: string, opts: AuditStoreCommonOptions = {}): { store: AuditStore; errors: Error[] } {
  const errors: Error[] = [];
  const store = openAuditStore({ dataDir: dir, retention: false, onError: (e) => errors.push(e), ...opts });
  return { store, errors };
}

let tapSeq = 0;

/** A base time far from "now" so relative filters in tests never depend on the clock. */
export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

export function event(over: Partial<TrafficEvent> = {}): TrafficEvent {
  tapSeq++;
  return {
    seq: tapSeq,
    ts: T0 + tapSeq,
    session: 's-1',
    server: 'files',
    direction: 'gateway_to_server',
    kind: 'request',
    method: 'tools/call',
    id: tapSeq,
    bytes: 100,
    message: { jsonrpc: '2.0', id: tapSeq, method: 'tools/call', params: { name: 'read_file' } },
    ...over,
  };
}

export function stderrLine(over: Partial<StderrLine> = {}): StderrLine {
  tapSeq++;
  return { seq: tapSeq, ts: T0 + tapSeq, session: 's-1', server: 'files', run: 1, line: `line ${tapSeq}`, ...over };
}
