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

/**
 * Send options of a channel that serialised the message it hands its transport: a transport
 * that writes JSON text (the lean HTTP transport, a stateless request's) writes `jsonText`
 * instead of serialising the message again. Carried with the send, as a value.
 */
export interface TextSendOptions {
  jsonText?: string;
}

/**
 * What a transport that read a message as text (an HTTP POST of one message) passes with it
 * (on MessageExtraInfo): its channel records that text and its wire size instead of
 * serialising the parsed message again.
 */
export interface RawTextInfo {
  rawText?: string;
}

/** The text to write for `message`: the one its channel made, else JSON.stringify. */
export function sendText(message: unknown, options: TextSendOptions | undefined): string {
  return options?.jsonText ?? JSON.stringify(message);
}
