import { describe, expect, it } from 'vitest';
import { expandTemplate, templateVariables } from './uri-template';

describe('resource templates', () => {
  it('names the variables of a template and fills them, encoded', () => {
    expect(templateVariables('demo://resource/dynamic/text/{resourceId}')).toEqual(['resourceId']);
    expect(templateVariables('file:///{+path}{?rev,mode}')).toEqual(['path', 'rev', 'mode']);
    expect(expandTemplate('demo://resource/dynamic/text/{resourceId}', { resourceId: '7' })).toBe('demo://resource/dynamic/text/7');
    expect(expandTemplate('demo://x/{id}', { id: 'a b/c' })).toBe('demo://x/a%20b%2Fc');
  });

  it('a malformed template is left as it is, with no variables', () => {
    expect(templateVariables('demo://x/{unclosed')).toEqual([]);
    expect(expandTemplate('demo://x/{unclosed', { unclosed: '1' })).toBe('demo://x/{unclosed');
  });
});
