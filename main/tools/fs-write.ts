// fs.write (friendly: write_file): atomic write through a verified temp file + rename.
import { z } from 'zod';
import { ToolError } from './errors';
import { displayPath, writeConfined } from './confine';
import { encodeText, resolveEncoding, SUPPORTED_ENCODINGS } from './encoding';
import { defineTool, resultSchema, orNull, plural } from './tool-kit';

const errorTypes = ['PathOutsideWorkspaceError', 'FileNotFoundError', 'FileExistsError', 'NotAFileError', 'PermissionError', 'FileTooLargeError', 'UnsupportedEncodingError', 'EncodeError', 'InvalidArgumentError', 'InternalError'] as const;

export const fsWriteTool = defineTool({
  name: 'fs.write',
  friendlyName: 'write_file',
  title: 'Write file',
  description:
    'Write text to a file inside the workspace, atomically: the content goes to a temporary file in the same folder which is then renamed over the target, so readers never see a half-written file. Creates the file if missing; replaces it unless overwrite is false; creates missing parent folders only when create_parent_dirs is true. The encoded content may not exceed the server\'s write cap (default 1 MiB).',
  inputShape: {
    file_path: z.string().describe('Path of the file: absolute inside the workspace, or relative to the workspace root.').meta({ examples: ['notes/todo.md'] }),
    content: z.string().describe('The complete new content of the file.').meta({ examples: ['# TODO\n- ship it\n'] }),
    encoding: z.string().optional().describe(`Encoding to write, default utf-8. Supported: ${SUPPORTED_ENCODINGS.join(', ')}.`).meta({ examples: ['utf-8'] }),
    create_parent_dirs: z.boolean().optional().describe('Create missing parent folders (default false).').meta({ examples: [true] }),
    overwrite: z.boolean().optional().describe('Replace an existing file (default true); when false an existing file is FileExistsError.').meta({ examples: [false] }),
  },
  outputSchema: resultSchema(
    {
      path: z.string().describe('Workspace-relative path of the written file (symlinks resolved).'),
      bytes_written: z.number().int().min(0).describe('Size of the encoded content in bytes.'),
      created: z.boolean().describe('True when the file did not exist before.'),
      encoding_used: z.string().describe('Canonical name of the encoding used.'),
    },
    errorTypes,
    { path_attempted: orNull(z.string(), 'no file_path string was given').describe('The file_path argument as given.') },
  ),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  errorTypes,
  pathArgument: 'file_path',
  securityNotes: [
    'Writes only inside the workspace root, with the same path rules as fs.read (no `..` escape, no absolute path outside, no drive/UNC forms, no NUL bytes, no symlink that leads out).',
    'On Linux each path component is opened as a directory descriptor with O_DIRECTORY|O_NOFOLLOW and the next is looked up through it (/proc/self/fd/<dirfd>/<name>), so a folder swapped for a symlink after the check cannot redirect the write; symlinks that stay inside are followed one by one, any other is PathOutsideWorkspaceError.',
    'The temp file is created in the target\'s own folder through that descriptor with O_CREAT|O_EXCL|O_NOFOLLOW, fsynced, verified inside the workspace and renamed within the same folder; it is removed on every failure; rename replaces a symlink at the target instead of following it.',
    'Each parent folder it creates is verified to be a real folder inside the workspace.',
    'Content larger than max_write_bytes (server option, default 1 MiB) is refused with FileTooLargeError before anything is written.',
  ],
  explain: (_args, r) =>
    `Successfully wrote ${plural(r.bytes_written, 'byte')} to ${r.path} using ${r.encoding_used} encoding (${r.created ? 'created a new file' : 'replaced the existing file'}).`,
  async run(ctx, args) {
    const info = resolveEncoding(args.encoding, args.file_path);
    const data = encodeText(args.content, info, args.file_path);
    if (data.length > ctx.options.max_write_bytes) {
      throw new ToolError('FileTooLargeError', `content is ${data.length} bytes, over the write cap of ${ctx.options.max_write_bytes} bytes`, {
        path_attempted: args.file_path, size_bytes: data.length, max_write_bytes: ctx.options.max_write_bytes,
      });
    }
    const r = await writeConfined(ctx.ws, args.file_path, data, { createParents: args.create_parent_dirs ?? false, overwrite: args.overwrite ?? true, hooks: ctx.hooks });
    return { path: displayPath(ctx.ws, r.real), bytes_written: data.length, created: r.created, encoding_used: info.name };
  },
});
