// F6 / Shift+F6 move focus between the window's regions, as browsers move it between the address
// bar and the page: navigation → top bar → the view → the approvals tray → navigation. It is also
// the documented way out of the Terminal (xterm hands F6 back to the page; terminal-pane.tsx).

/** The regions in F6 order; those not on screen (the tray when hidden) are skipped. */
export const REGION_SELECTORS = ['nav.sidebar', 'header.topbar', 'main#main', 'aside.tray'] as const;

/** Where focus lands in a region: the current nav item, the first card, the view itself. */
function entryPoint(region: HTMLElement): HTMLElement | null {
  if (region.matches('nav.sidebar')) return region.querySelector<HTMLElement>('[aria-current="page"]') ?? region.querySelector<HTMLElement>('a, button');
  if (region.matches('aside.tray')) return region.querySelector<HTMLElement>('[data-approval-id]') ?? region;
  if (region.matches('header.topbar')) return region.querySelector<HTMLElement>('select, button:not(:disabled), a');
  return region;
}

export function focusRegion(step: 1 | -1, doc: Document = document): HTMLElement | null {
  const regions = REGION_SELECTORS.map((s) => doc.querySelector<HTMLElement>(s)).filter((r): r is HTMLElement => r !== null && r.getClientRects().length > 0);
  if (!regions.length) return null;
  const active = doc.activeElement;
  const at = regions.findIndex((r) => active instanceof Node && r.contains(active));
  const next = at < 0 ? (step === 1 ? 0 : regions.length - 1) : (at + step + regions.length) % regions.length;
  const region = regions[next]!;
  const target = entryPoint(region) ?? region;
  target.focus({ preventScroll: false });
  return target;
}
