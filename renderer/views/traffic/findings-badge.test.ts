// The findings badge and the record behind the detail pane (docs/data.md "Findings in the
// window"): counted by kind, rules and paths in the tooltip, and a flow-guard reason kept whole.
import { describe, expect, it } from 'vitest';
import { TrafficStore, type ExchangeInfo, type TrafficEvent } from '../../lib/traffic-store';
import { findingsBadge } from './traffic-row';

const aws = { direction: 'result', kind: 'credential', rule: 'aws', detail: 'AWSAccessKeyID', path: '$.content[0].text', start: 18, end: 38 } as const;
const gh = { direction: 'result', kind: 'credential', rule: 'github', path: '$.content[0].text', start: 47, end: 87 } as const;
const secret = { direction: 'arguments', kind: 'secret', rule: 'secret:API_KEY', path: '$.token', start: 0, end: 12 } as const;

describe('the findings badge', () => {
  it('counts by kind and lists rule, direction and path in its tooltip', () => {
    expect(findingsBadge({})).toBeUndefined();
    expect(findingsBadge({ findings: [] })).toBeUndefined();
    expect(findingsBadge({ findings: [aws] })?.text).toBe('1 credential');
    const two = findingsBadge({ findings: [aws, gh] })!;
    expect(two.text).toBe('2 credentials');
    expect(two.title).toBe('aws (AWSAccessKeyID) in the result at $.content[0].text\ngithub in the result at $.content[0].text');
    expect(findingsBadge({ findings: [secret] })?.text).toBe('1 secret');
    expect(findingsBadge({ findings: [aws, secret] })?.text).toBe('2 findings');
  });
});

describe('the call row takes its findings and flow reason from the exchange', () => {
  it('keeps the whole reason, the rule, the labels and the findings, learnt after the answer', () => {
    const s = new TrafficStore();
    const base = { session: 'L1', agentSession: 'A1', exchange: 'A1#1' };
    const events: TrafficEvent[] = [
      { ...base, seq: 1, ts: 1, direction: 'agent_to_gateway', kind: 'request', id: 1, method: 'tools/call', bytes: 10, message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'http_request' } } },
      { ...base, seq: 2, ts: 2, direction: 'gateway_to_agent', kind: 'response', id: 1, bytes: 10, message: { jsonrpc: '2.0', id: 1, result: { isError: true, content: [] } } },
    ];
    s.append(events);
    const reason =
      'this session read private files (workspace.fs.read) and content from the web or another untrusted source (creds.fetch_page); ' +
      'workspace.net.http_request can send data out (sends requests to the network)';
    const info: ExchangeInfo = { id: 'A1#1', ts: 1, session: 'L1', agentSession: 'A1', kind: 'call', method: 'tools/call', downstreamId: 1, decision: 'DENY', rule: 'policy.flow', reason, outcome: 'denied', flow: ['private', 'untrusted'], findings: [secret] };
    s.applyExchanges([info]);
    const row = s.exchangeRoot('L1', 'A1#1')!;
    expect(row.reason).toBe(reason);
    expect(row.rule).toBe('policy.flow');
    expect(row.flow).toEqual(['private', 'untrusted']);
    expect(row.findings).toEqual([secret]);
    s.setFilter({ statuses: ['findings'] });
    expect(s.size()).toBe(1);
    expect(s.at(0)).toBe(row);
  });
});
