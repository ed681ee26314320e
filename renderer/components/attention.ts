// While approvals wait, the tab says so: "(2) Gatehouse" in the title and a count drawn on the
// favicon, so a person in another tab sees it before the request times out.
import { useEffect } from 'react';

export const APP_TITLE = 'Gatehouse';

export function attentionTitle(count: number, base = APP_TITLE): string {
  return count > 0 ? `(${count > 99 ? '99+' : count}) ${base}` : base;
}

// The brand mark (app.tsx, renderer/public/icon.svg) on a 24-unit grid.
const MARK = 'M4 20V9l8-5 8 5v11h-5v-6H9v6z';

/** A PNG data URL: the mark with a red count badge, or null when the canvas cannot draw. */
export function badgeIcon(count: number, doc: Document = document): string | null {
  const canvas = doc.createElement('canvas');
  canvas.width = canvas.height = 64;
  const ctx = canvas.getContext('2d');
  if (!ctx || typeof Path2D === 'undefined') return null;
  ctx.save();
  ctx.scale(64 / 24, 64 / 24);
  ctx.fillStyle = '#3b5bdb';
  ctx.fill(new Path2D(MARK));
  ctx.restore();
  const text = count > 9 ? '9+' : String(count);
  ctx.fillStyle = '#c92a2a';
  ctx.beginPath();
  ctx.arc(44, 20, 20, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = '#ffffff';
  ctx.font = 'bold 28px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, 44, 22);
  return canvas.toDataURL('image/png');
}

/** Keeps document.title and the favicon in step with the number of waiting approvals. */
export function useAttentionBadge(count: number): void {
  useEffect(() => {
    document.title = attentionTitle(count);
    const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (!link) return;
    const original = link.dataset.originalHref ?? link.getAttribute('href') ?? '';
    link.dataset.originalHref = original;
    const badge = count > 0 ? badgeIcon(count) : null;
    if (badge) {
      link.type = 'image/png';
      link.href = badge;
    } else {
      link.type = 'image/svg+xml';
      link.setAttribute('href', original);
    }
  }, [count]);
}
