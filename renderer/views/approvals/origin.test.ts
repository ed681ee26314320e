import { describe, expect, it } from 'vitest';
import { originLabel } from './origin';

describe('originLabel', () => {
  it('names the gateway process a relayed request came from', () => {
    expect(originLabel('gateway:4242')).toBe('from gateway process 4242');
    expect(originLabel('gateway:4242#2')).toBe('from gateway process 4242 (connection 2)');
  });

  it('marks a gateway whose pid the host could not read from the socket as unverified', () => {
    expect(originLabel('gateway:unverified')).toBe('from an unverified gateway process (its pid could not be read from the socket)');
    expect(originLabel('gateway:unverified#3')).toMatch(/unverified .*\(connection 3\)$/);
  });

  it('says nothing for the window’s own sessions', () => {
    expect(originLabel('launch-1')).toBeUndefined();
    expect(originLabel('gateway:')).toBeUndefined();
    expect(originLabel('xgateway:1')).toBeUndefined();
    expect(originLabel(undefined)).toBeUndefined();
  });
});
