// Who may talk to the host over IPC (Electron security checklist, "Validate the sender of all
// IPC messages"). Every handler goes through `checkSender` first, in one place, like GitHub
// Desktop's `safeListener`. Pure: the frame and window are described by the few fields the
// check reads, so it runs under vitest without Electron.
import { isAppUrl } from './app-origin';

/** The fields of Electron's WebFrameMain that the check reads. */
export interface FrameLike {
  readonly url: string;
  readonly parent: unknown;
  readonly processId: number;
  readonly routingId: number;
  readonly detached?: boolean;
}

/** The fields of an IpcMainInvokeEvent that the check reads. */
export interface SenderLike {
  /** `event.sender.id`: the WebContents that sent the message. */
  readonly senderId: number;
  /** `event.senderFrame`: null when the frame navigated away or was destroyed meanwhile. */
  readonly frame: FrameLike | null | undefined;
}

/** What we trust: the main frame of our own window's WebContents. */
export interface TrustedWindowLike {
  readonly webContentsId: number;
  /** `webContents.mainFrame`, compared by (processId, routingId): WebFrameMain wrappers are not promised to be identical objects. */
  readonly mainFrame: { readonly processId: number; readonly routingId: number } | undefined;
}

export type SenderVerdict = { ok: true } | { ok: false; reason: string };

export function checkSender(sender: SenderLike, trusted: TrustedWindowLike | undefined): SenderVerdict {
  if (!trusted) return { ok: false, reason: 'no Gatehouse window is open' };
  if (sender.senderId !== trusted.webContentsId) return { ok: false, reason: `sender web contents ${sender.senderId} is not the Gatehouse window` };
  const frame = sender.frame;
  if (!frame) return { ok: false, reason: 'the sending frame is gone (navigated or destroyed)' };
  if (frame.detached === true) return { ok: false, reason: 'the sending frame is detached' };
  // Sub-frames never get the host API, even same-origin ones (there are none in our UI; an
  // injected iframe must not inherit the main frame's powers).
  if (frame.parent !== null && frame.parent !== undefined) return { ok: false, reason: 'the sender is a sub-frame' };
  const main = trusted.mainFrame;
  if (!main || frame.processId !== main.processId || frame.routingId !== main.routingId) return { ok: false, reason: 'the sender is not the main frame of the Gatehouse window' };
  if (!isAppUrl(frame.url)) return { ok: false, reason: `the sending frame is on ${describeUrl(frame.url)}, not app://gatehouse/` };
  return { ok: true };
}

/** Scheme and host only: enough to say where a refused sender was, without echoing a full URL into logs. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.host ? `${u.protocol}//${u.host}` : u.protocol;
  } catch {
    return 'an unparsable URL';
  }
}
