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

// One-message hand-off between a tap that serialised a message it is about to send and the
// transport it sends it through (TappedTransport → the lean HTTP transport): the send path is
// synchronous from one to the other, so one slot is enough, and it is cleared on use.
let offeredMessage: unknown;
let offeredText: string | undefined;

/** Offers the text of the message about to be sent to the transport that sends it. */
export function offerSendText(message: unknown, text: string): void {
  offeredMessage = message;
  offeredText = text;
}

/** JSON.stringify(message), taken from the hand-off when the tap just serialised this very message. */
export function sendText(message: unknown): string {
  const text = offeredText;
  const match = offeredMessage === message;
  offeredMessage = undefined;
  offeredText = undefined;
  return match && text !== undefined ? text : JSON.stringify(message);
}
