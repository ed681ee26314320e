// The prefilter's verdict travels with a message (scanner.ts mayHoldCredentialsOnce): a result
// the call pipeline's scan cleared is not walked again by the tap's record of the answer, and
// the answer's other fields still are. Samples are joined from pieces so no scanner flags this file.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../secrets/redactor';
import { screenRecord } from './traffic-screen';
import { DataScanner } from './scanner';

const TOKEN = ['ghp', 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7'].join('_');

describe('traffic screen, one prefilter pass per message', () => {
  it('skips a result already cleared, and still masks a credential beside it in the same answer', async () => {
    const result = { content: [{ type: 'text', text: 'Echo: hello' }] };
    expect(await new DataScanner(new Redactor()).scan(result, 'result')).toEqual([]);
    expect(screenRecord({ message: { jsonrpc: '2.0', id: 1, result } })).toBeUndefined();
    // The id is not part of the cleared result: it is looked at, found and masked.
    // (After the result in key order, so a screen that stopped at the cleared result would miss it.)
    const leaky = screenRecord({ message: { jsonrpc: '2.0', result, id: `id ${TOKEN}` } });
    expect(leaky).toBeInstanceOf(Promise);
    const masked = await leaky!;
    expect(JSON.stringify(masked.message)).not.toContain(TOKEN);
    expect(JSON.stringify(masked.message)).toContain('«credential:github»');
  });

  it('never clears a result that holds a credential, however often it is seen', async () => {
    const result = { content: [{ type: 'text', text: `token ${TOKEN}` }] };
    const findings = await new DataScanner(new Redactor()).scan(result, 'result');
    expect(findings.map((f) => f.rule)).toEqual(['github']);
    for (let i = 0; i < 2; i++) {
      const screened = await screenRecord({ message: { jsonrpc: '2.0', id: i, result } })!;
      expect(JSON.stringify(screened.message)).not.toContain(TOKEN);
    }
  });
});
