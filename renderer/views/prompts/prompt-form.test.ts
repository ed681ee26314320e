import { describe, expect, it } from 'vitest';
import { promptArguments } from './prompt-form';

describe('prompt arguments', () => {
  const spec = [{ name: 'city', required: true }, { name: 'state' }];
  it('leaves empty optional fields out and names the required ones left empty', () => {
    expect(promptArguments(spec, {})).toEqual({ arguments: {}, missing: ['city'] });
    expect(promptArguments(spec, { city: 'Lyon', state: '' })).toEqual({ arguments: { city: 'Lyon' }, missing: [] });
    expect(promptArguments(spec, { city: 'Lyon', state: 'Rhône', other: 'x' })).toEqual({ arguments: { city: 'Lyon', state: 'Rhône' }, missing: [] });
  });
});
