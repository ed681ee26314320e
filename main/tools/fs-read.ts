// fs.read (friendly: read_file), following its specification (resources/workspace-tools/MCP_TOOL_SPECIFICATION.md) exactly.
//
// Size policy: a file larger than max_read_bytes is FileTooLargeError, unless max_chars is given:
// then only a bounded prefix (at most max_read_bytes) is read and decoded in 64 KiB chunks, and the
// read stops as soon as max_chars characters are decoded. If the cap is reached before max_chars
// characters, that is FileTooLargeError too, so chars_read is always min(max_chars, chars in file).
// Characters are Unicode code points (a surrogate pair is one character, never split).
import { z } from 'zod';
import { ToolError, fsErrorToToolError } from './errors';
import { openConfinedForRead } from './confine';
import { createDecoder, resolveEncoding, SUPPORTED_ENCODINGS } from './encoding';
import { defineTool, resultSchema, type ToolContext, orNull } from './tool-kit';

const CHUNK = 64 * 1024;

const inputShape = {
  file_path: z.string().describe('Path of the file: absolute inside the workspace, or relative to the workspace root.').meta({ examples: ['src/index.ts'] }),
  max_chars: z.number().int().min(1).optional().describe('Return at most this many characters (Unicode code points) from the start of the file. Lets a bounded prefix of a file larger than the read cap be read.').meta({ examples: [2000] }),
  encoding: z.string().optional().describe(`Text encoding of the file, default utf-8. Supported: ${SUPPORTED_ENCODINGS.join(', ')}.`).meta({ examples: ['utf-8'] }),
};

const errorTypes = ['FileNotFoundError', 'PermissionError', 'UnsupportedEncodingError', 'FileTooLargeError', 'PathOutsideWorkspaceError', 'DecodeError', 'NotAFileError', 'InvalidArgumentError', 'InternalError'] as const;

export interface ReadTextResult {
  text: string;
  chars: number;
}

function countCodePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function sliceCodePoints(s: string, count: number): string {
  let i = 0;
  for (let n = 0; n < count && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
  }
  return s.slice(0, i);
}

/** Reads and decodes a confined text file within the byte cap (shared with apply_patch). */
export async function readConfinedText(
  ctx: ToolContext,
  filePath: string,
  opts: { encoding?: string; maxChars?: number; maxBytes?: number } = {},
): Promise<ReadTextResult & { encodingUsed: string; real: string }> {
  const info = resolveEncoding(opts.encoding, filePath);
  const maxBytes = opts.maxBytes ?? ctx.options.max_read_bytes;
  const opened = await openConfinedForRead(ctx.ws, filePath, ctx.hooks, { allowHardLinks: ctx.options.allow_hardlinked_reads });
  try {
    const tooLarge = (extra: string): ToolError =>
      new ToolError('FileTooLargeError', `file is ${opened.stat.size} bytes, over the read cap of ${maxBytes} bytes${extra}`, {
        path_attempted: filePath, size_bytes: opened.stat.size, max_read_bytes: maxBytes,
      });
    if (opened.stat.size > maxBytes && opts.maxChars === undefined) throw tooLarge('; pass max_chars to read a prefix');
    const decoder = createDecoder(info, filePath);
    const buffer = Buffer.allocUnsafe(CHUNK);
    const parts: string[] = [];
    let chars = 0;
    let total = 0;
    for (;;) {
      const want = Math.min(CHUNK, maxBytes - total + 1);
      const { bytesRead } = await opened.handle.read(buffer, 0, want, null);
      if (bytesRead === 0) {
        const tail = decoder.decode(new Uint8Array(0), true);
        if (tail) { parts.push(tail); chars += countCodePoints(tail); }
        break;
      }
      // One byte past the cap is requested on purpose: it tells "exactly at the cap" from "over".
      const over = total + bytesRead > maxBytes;
      const usable = over ? maxBytes - total : bytesRead;
      total += usable;
      const text = usable > 0 ? decoder.decode(buffer.subarray(0, usable), false) : '';
      const n = countCodePoints(text);
      if (opts.maxChars !== undefined && chars + n >= opts.maxChars) {
        parts.push(sliceCodePoints(text, opts.maxChars - chars));
        chars = opts.maxChars;
        break;
      }
      if (over) {
        throw tooLarge(opts.maxChars === undefined ? ' (it grew while being read)' : `; its first ${maxBytes} bytes hold fewer than max_chars=${opts.maxChars} characters`);
      }
      parts.push(text);
      chars += n;
    }
    let text = parts.join('');
    if (opts.maxChars !== undefined && chars > opts.maxChars) { text = sliceCodePoints(text, opts.maxChars); chars = opts.maxChars; }
    return { text, chars, encodingUsed: info.name, real: opened.real };
  } catch (e) {
    throw fsErrorToToolError(e, filePath, 'read');
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

export const fsReadTool = defineTool({
  name: 'fs.read',
  friendlyName: 'read_file',
  title: 'Read file',
  description:
    'Read a text file inside the workspace and return its decoded content. The path may be absolute (inside the workspace) or relative to the workspace root; symbolic links are followed only while they stay inside the workspace. Files larger than the server\'s read cap (default 1 MiB) fail with FileTooLargeError unless max_chars is given, in which case only a bounded prefix is read. Undecodable bytes fail with DecodeError naming the encoding.',
  inputShape,
  outputSchema: resultSchema(
    {
      file_content: z.string().describe('The decoded text (the first max_chars characters when max_chars is given).'),
      chars_read: z.number().int().min(0).describe('Number of characters (Unicode code points) in file_content.'),
      encoding_used: z.string().describe('Canonical name of the encoding used to decode the file.'),
    },
    errorTypes,
    { path_attempted: orNull(z.string(), 'no file_path string was given').describe('The file_path argument as given.') },
  ),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  errorTypes,
  pathArgument: 'file_path',
  resultTooLargeError: 'FileTooLargeError',
  securityNotes: [
    'Reads only inside the workspace root: `..`, absolute paths outside the root, Windows drive (`C:\\`) and UNC (`\\\\server\\share`) forms and NUL bytes are refused on every platform (PathOutsideWorkspaceError).',
    'Symbolic links are resolved; one that points outside the workspace is refused, also when it is swapped in between the check and the open (the opened descriptor is verified).',
    'Opens with O_NOFOLLOW and O_NONBLOCK; only regular files are read (FIFOs and devices are NotAFileError).',
    'A regular file with more than one hard link is refused (PathOutsideWorkspaceError, reason hard_link): its other names may lie outside the workspace. The server option allow_hardlinked_reads: true allows such reads (e.g. a pnpm store).',
    'At most max_read_bytes (server option, default 1 MiB) are ever read; memory stays bounded whatever the file size.',
  ],
  explain: (args, r) => `Successfully read ${r.chars_read} characters from ${args.file_path} using ${r.encoding_used} encoding.`,
  async run(ctx, args) {
    const r = await readConfinedText(ctx, args.file_path, { encoding: args.encoding, maxChars: args.max_chars });
    return { file_content: r.text, chars_read: r.chars, encoding_used: r.encodingUsed };
  },
});
