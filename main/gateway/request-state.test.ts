import { describe, expect, it } from 'vitest';
import { RequestStateError, RequestStateSealer, type SealedState } from './request-state';

const STATE: SealedState = { exchange: 'stateless-main#7~1', round: 1, target: 'tools/call:fs.read', caller: 'http:', issuedAt: 1 };

describe('RequestStateSealer', () => {
  it('opens what it sealed, and never shows the state in clear', () => {
    const sealer = new RequestStateSealer();
    const token = sealer.seal(STATE);
    expect(token).not.toContain('fs.read');
    expect(token).not.toContain('stateless-main');
    expect(sealer.open(token)).toEqual(STATE);
    // Two seals of the same state differ (fresh IV), and both open.
    const again = sealer.seal(STATE);
    expect(again).not.toBe(token);
    expect(sealer.open(again)).toEqual(STATE);
  });

  it('refuses every altered character, a foreign key, a truncation and non-strings', () => {
    const sealer = new RequestStateSealer();
    const token = sealer.seal(STATE);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 4; i < token.length; i++) {
      const c = token[i]!;
      const other = alphabet[(alphabet.indexOf(c) + 1) % alphabet.length]!;
      expect(() => sealer.open(token.slice(0, i) + other + token.slice(i + 1)), `char ${i}`).toThrow(RequestStateError);
    }
    expect(() => sealer.open(`${token}-TAMPERED`)).toThrow(/integrity/);
    expect(() => sealer.open(token.slice(0, -4))).toThrow(RequestStateError);
    expect(() => new RequestStateSealer().open(token)).toThrow(/another gateway/);
    expect(() => sealer.open('opaque-server-state')).toThrow(/not one this gateway issued/);
    expect(() => sealer.open(42)).toThrow(/got number/);
    expect(() => sealer.open(null)).toThrow(/got null/);
  });

  it('takes only a 32-byte key', () => {
    expect(() => new RequestStateSealer(Buffer.alloc(16))).toThrow(/expected 32 bytes, got 16/);
  });
});
