/**
 * Writes text to the clipboard. The async Clipboard API needs a secure context (Electron's
 * custom protocol and http://127.0.0.1 both are) and a user gesture; where it is missing we
 * fall back to a hidden textarea and execCommand, which still works in older shells.
 */
export async function copyText(text: string): Promise<void> {
  if (typeof navigator !== 'undefined' && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // fall through to the legacy path (e.g. permission denied in a plain browser tab)
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the clipboard is not available here; select the text and copy it by hand');
}
