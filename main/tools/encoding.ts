// Text encodings the file tools accept. Decoding goes through TextDecoder with `fatal: true`
// so undecodable bytes become a DecodeError naming the encoding instead of silent U+FFFD.
import { ToolError } from './errors';

export type NodeEncoding = 'utf8' | 'utf16le' | 'latin1' | 'ascii';

export interface EncodingInfo {
  /** The canonical name reported back as encoding_used. */
  readonly name: string;
  /** WHATWG label for TextDecoder. */
  readonly decoderLabel: string;
  /** How node:buffer encodes it. */
  readonly node: NodeEncoding;
  /** Highest code point the encoding can represent (writes check it: Buffer would silently mangle). */
  readonly maxCodePoint: number;
}

const UTF8: EncodingInfo = { name: 'utf-8', decoderLabel: 'utf-8', node: 'utf8', maxCodePoint: 0x10ffff };
const UTF16LE: EncodingInfo = { name: 'utf-16le', decoderLabel: 'utf-16le', node: 'utf16le', maxCodePoint: 0x10ffff };
// WHATWG maps "latin1"/"iso-8859-1"/"ascii" to windows-1252, which differs from ISO-8859-1 in
// 0x80–0x9F; we want the byte-for-code-point mapping that Buffer's latin1 gives, so those two
// decode through Buffer after a validity check instead.
const LATIN1: EncodingInfo = { name: 'latin1', decoderLabel: 'latin1', node: 'latin1', maxCodePoint: 0xff };
const ASCII: EncodingInfo = { name: 'ascii', decoderLabel: 'ascii', node: 'ascii', maxCodePoint: 0x7f };

const ALIASES: Record<string, EncodingInfo> = {
  'utf-8': UTF8, utf8: UTF8, 'unicode-1-1-utf-8': UTF8,
  'utf-16le': UTF16LE, utf16le: UTF16LE, 'utf-16': UTF16LE, ucs2: UTF16LE, 'ucs-2': UTF16LE,
  latin1: LATIN1, 'latin-1': LATIN1, 'iso-8859-1': LATIN1, iso88591: LATIN1, 'iso_8859-1': LATIN1, l1: LATIN1,
  ascii: ASCII, 'us-ascii': ASCII,
};

export const SUPPORTED_ENCODINGS = ['utf-8', 'utf-16le', 'latin1 (iso-8859-1)', 'ascii'] as const;

export function resolveEncoding(label: string | undefined, pathAttempted: string): EncodingInfo {
  const key = (label ?? 'utf-8').trim().toLowerCase();
  const info = ALIASES[key];
  if (!info) {
    throw new ToolError('UnsupportedEncodingError', `unsupported encoding ${JSON.stringify(label)}; supported: ${SUPPORTED_ENCODINGS.join(', ')}`, {
      path_attempted: pathAttempted,
      encoding: label ?? null,
      supported: [...SUPPORTED_ENCODINGS],
    });
  }
  return info;
}

/** A streaming decoder that fails on the first invalid sequence. */
export interface StreamDecoder {
  /** Decodes a chunk; `last` flushes (an incomplete trailing sequence is an error then). */
  decode(chunk: Uint8Array, last: boolean): string;
}

export function createDecoder(info: EncodingInfo, pathAttempted: string): StreamDecoder {
  let offset = 0;
  const fail = (detail: string): never => {
    throw new ToolError('DecodeError', `bytes are not valid ${info.name}${detail}`, { path_attempted: pathAttempted, encoding: info.name, byte_offset: offset });
  };
  if (info.node === 'latin1') {
    return { decode: (chunk) => { offset += chunk.length; return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1'); } };
  }
  if (info.node === 'ascii') {
    return {
      decode: (chunk) => {
        const bad = chunk.findIndex((b) => b > 0x7f);
        if (bad >= 0) { offset += bad; fail(` (byte 0x${chunk[bad]!.toString(16)} at offset ${offset})`); }
        offset += chunk.length;
        return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      },
    };
  }
  const decoder = new TextDecoder(info.decoderLabel, { fatal: true, ignoreBOM: false });
  return {
    decode: (chunk, last) => {
      try {
        const text = decoder.decode(chunk, { stream: !last });
        offset += chunk.length;
        return text;
      } catch {
        return fail(` (in the ${chunk.length} bytes after offset ${offset})`);
      }
    },
  };
}

export function encodeText(text: string, info: EncodingInfo, pathAttempted: string): Buffer {
  if (info.maxCodePoint < 0x10ffff) {
    let index = 0;
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (cp > info.maxCodePoint) {
        throw new ToolError('EncodeError', `character U+${cp.toString(16).toUpperCase().padStart(4, '0')} at index ${index} cannot be encoded as ${info.name}`, {
          path_attempted: pathAttempted, encoding: info.name, char_index: index,
        });
      }
      index += 1;
    }
  } else if (info.node === 'utf8' || info.node === 'utf16le') {
    // A lone surrogate would be written as U+FFFD by Buffer; refuse rather than corrupt.
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)) {
      throw new ToolError('EncodeError', `text contains a lone UTF-16 surrogate that cannot be encoded as ${info.name}`, { path_attempted: pathAttempted, encoding: info.name });
    }
  }
  return Buffer.from(text, info.node);
}
