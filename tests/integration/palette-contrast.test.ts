// The palette meets WCAG AA in both themes: each text colour on each background it is drawn on
// (tokens.css; the badge, button and muted-text rules in components.css) is measured here with
// the WCAG 2.x contrast formula. axe (tests/e2e/a11y.spec.ts) checks the rendered views.
// It lives here, not beside tokens.css, because it reads the file with Node (the renderer's own
// tests may not import Node, and vitest hands CSS imports over empty).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const css = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'renderer', 'styles', 'tokens.css'), 'utf8');

function block(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`tokens.css has no ${selector} block`);
  const body = css.slice(start, css.indexOf('}', start));
  return Object.fromEntries([...body.matchAll(/--([a-z0-9-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1]!, m[2]!]));
}

const light = block(':root');
const dark = { ...light, ...block(":root[data-theme='dark']") };

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

// [text, background]: tokens, or literal colours where components.css uses one.
const TEXT_PAIRS: Array<[string, string]> = [
  ...['bg', 'bg-elev', 'bg-sunken', 'bg-hover', 'bg-active', 'bg-nav'].flatMap((bg): Array<[string, string]> => [
    ['text', bg],
    ['text-muted', bg],
  ]),
  ...['bg', 'bg-elev', 'bg-sunken', 'bg-nav'].map((bg): [string, string] => ['text-faint', bg]),
  ['text-muted', 'neutral-soft'],
  ['ok', 'ok-soft'],
  ['warn', 'warn-soft'],
  ['danger', 'danger-soft'],
  ['info', 'info-soft'],
  ['accent', 'accent-soft'],
  ['accent', 'bg-elev'],
  ['accent', 'bg'],
  ['accent-text', 'accent'],
  ['diff-add-fg', 'diff-add-bg'],
  ['diff-del-fg', 'diff-del-bg'],
  ['ok', 'bg-elev'],
  ['warn', 'bg-elev'],
  ['danger', 'bg-elev'],
];

describe('the palette meets WCAG AA', () => {
  for (const [theme, tokens, successText] of [
    ['light', light, '#ffffff'],
    ['dark', dark, '#0b1d10'],
  ] as const) {
    const get = (name: string): string => {
      const v = name.startsWith('#') ? name : tokens[name];
      if (!v) throw new Error(`${theme}: no --${name} in tokens.css`);
      return v;
    };
    it(`${theme}: every text colour on its backgrounds is at least 4.5:1`, () => {
      const failures = [...TEXT_PAIRS, [successText, 'ok'] as [string, string]]
        .map(([fg, bg]) => ({ fg, bg, ratio: contrast(get(fg), get(bg)) }))
        .filter((p) => p.ratio < 4.5)
        .map((p) => `${p.fg} on ${p.bg}: ${p.ratio.toFixed(2)}:1`);
      expect(failures).toEqual([]);
    });
    it(`${theme}: the focus ring and strong borders stand out from the surface (3:1 for UI)`, () => {
      expect(contrast(get('focus'), get('bg-elev'))).toBeGreaterThanOrEqual(3);
    });
  }

  it('measures what the window review measured before the fix (so the formula is the one axe uses)', () => {
    expect(contrast('#2b8a3e', '#e3f4e6')).toBeCloseTo(3.81, 1);
    expect(contrast('#8a8a95', '#ffffff')).toBeCloseTo(3.41, 1);
    expect(contrast('#b35c00', '#fff1dc')).toBeCloseTo(4.24, 1);
  });
});
