// A message crossing a hop is serialised by the transport that writes it (or by the tap that
// measures it), and again by the audit writer that stores it. The tap keeps the text it was
// handed on the traffic record, so the writer stores that text instead of serialising the
// message a second time. It is kept under a symbol, non-enumerable: JSON.stringify, structured
// clone, spread and deep equality do not see it, and the record looks exactly as before.
//
// Only text that is exactly JSON.stringify(record.message) is kept; the writer also checks that
// the message is still the one the text was made from (a redacted copy never gets one).
const TEXT = Symbol('gatehouse.jsonText');

interface WithText {
  [TEXT]?: { of: unknown; text: string };
}

/** Remembers `text` (= JSON.stringify(message)) on a record whose `message` is `message`. */
export function attachJsonText(record: object, message: unknown, text: string): void {
  Object.defineProperty(record, TEXT, { value: { of: message, text }, enumerable: false, writable: true, configurable: true });
}

/** JSON text of `record.message`: the text the tap kept when it is still valid, else JSON.stringify. */
export function messageJsonText(record: { message: unknown }): string | undefined {
  const kept = (record as WithText)[TEXT];
  if (kept !== undefined && kept.of === record.message) return kept.text;
  return JSON.stringify(record.message) as string | undefined;
}

// Hand-off between a channel that serialised a message it is about to send and the transport
// that writes it (exchange channel → the lean HTTP transport). Keyed by the message object
// itself, so no ordering between the two matters; a message that was never offered (or one
// whose entry the GC took with it) is serialised again.
const offered = new WeakMap<object, string>();

/** Offers the text of the message about to be sent to the transport that sends it. */
export function offerSendText(message: unknown, text: string): void {
  if (message !== null && typeof message === 'object') offered.set(message, text);
}

/** JSON.stringify(message), taken from the hand-off when this very message was offered. */
export function sendText(message: unknown): string {
  if (message !== null && typeof message === 'object') {
    const text = offered.get(message);
    if (text !== undefined) {
      offered.delete(message);
      return text;
    }
  }
  return JSON.stringify(message);
}
