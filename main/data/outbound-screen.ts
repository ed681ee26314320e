// Everything a server says that reaches an agent passes one screen (docs/data.md, "Every message
// toward the agent"): not only results, but JSON-RPC errors (message and data), log and progress
// notifications, server→client requests (sampling messages, elicitation messages, a new-era
// input request) and list results (tool, prompt and resource descriptions). The downstream
// channels run it on every message they send (main/protocol/exchange-channel.ts), in both eras:
//  - configured secrets are replaced by `«secret:NAME»` (the profile's Redactor, as before);
//  - detected credentials are masked `«credential:RULE»` unless `policy.data.results: allow`
//    (`hold` holds results only: any other message is masked, since it cannot wait for a person);
//  - what was found goes on the message's exchange (and so into the audit store), as for results.
// The hot path: a message with no configured secret (the Redactor gives back the same object)
// that the credential prefilter clears is sent as it is, in the same turn, with nothing more
// made for it. Results the call pipeline has screened already (DataGuard.inspectResult) are not
// scanned twice: the pipeline's verdict on them (redact, a released hold, allow) stands.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { OutboundScreen } from '../protocol/exchange-channel';
import type { ExchangeStamp } from '../protocol/types';
import type { Redactor } from '../secrets/redactor';
import { isScreened, type DataGuard } from './data-guard';
import { mayHoldCredentialsOnce, maskCredentials, type DataFinding } from './scanner';

/** Where a screen's findings go: the message, the exchange it was stamped with (if any), what was found. */
export type FoundSink = (stamp: ExchangeStamp | undefined, message: JSONRPCMessage, findings: DataFinding[], agentSession?: string) => void;

export class DataOutboundScreen implements OutboundScreen {
  constructor(
    private readonly redactor: Redactor,
    private readonly data: DataGuard,
    private readonly sink: FoundSink,
  ) {}

  screen(original: JSONRPCMessage): JSONRPCMessage | Promise<{ message: JSONRPCMessage; findings: DataFinding[] }> {
    const redacted = this.redactor.redactJson(original);
    const result = (original as { result?: unknown }).result;
    if (result !== undefined && isScreened(result)) return redacted;
    if (redacted === original && !mayHoldCredentialsOnce(original)) return original;
    return this.scan(original);
  }

  found(stamp: ExchangeStamp | undefined, message: JSONRPCMessage, findings: unknown[], agentSession?: string): void {
    this.sink(stamp, message, findings as DataFinding[], agentSession);
  }

  /** The message scanned whole (paths from its root: `$.error.message`), masked per policy, then redacted. */
  private async scan(original: JSONRPCMessage): Promise<{ message: JSONRPCMessage; findings: DataFinding[] }> {
    try {
      const findings = await this.data.scan(original, 'result');
      const masked = this.data.policy.results === 'allow' ? original : maskCredentials(original, findings);
      return { message: this.redactor.redactJson(masked), findings };
    } catch (err) {
      // Never the clear message: a scan that fails sends a stand-in the agent can read as a failure.
      return { message: standIn(original, (err as Error).message), findings: [] };
    }
  }
}

/** What is sent instead of a message the scanner failed on: its id kept (a request still gets one answer). */
function standIn(original: JSONRPCMessage, why: string): JSONRPCMessage {
  const m = original as { id?: string | number; method?: string };
  const text = `the data scanner failed on this message: ${why}`;
  if (m.method === undefined && m.id !== undefined) return { jsonrpc: '2.0', id: m.id, error: { code: -32603, message: text } };
  if (m.method !== undefined && m.id !== undefined) return { jsonrpc: '2.0', id: m.id, method: m.method, params: { 'gatehouse/unscanned': text } } as JSONRPCMessage;
  return { jsonrpc: '2.0', method: m.method ?? 'notifications/message', params: { level: 'error', logger: 'gatehouse', data: text } };
}
