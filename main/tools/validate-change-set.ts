// repo.validate_change_set (friendly: validate_change_set): a dry run of a set of file changes.
// Changes are checked in order against a virtual overlay of the earlier ones (a modify after a
// create of the same file sees the created content), and nothing is ever written.
import { z } from 'zod';
import { ToolError, isToolError } from './errors';
import { displayPath, resolveConfined } from './confine';
import { applyFilePatch, parseUnifiedDiff, type FilePatch } from './patch';
import { currentText } from './apply-patch';
import { defineTool, resultSchema, type ToolContext, orNull, openObject, plural } from './tool-kit';

const errorTypes = ['InvalidArgumentError', 'InternalError'] as const;
const verdictErrorTypes = ['PathOutsideWorkspaceError', 'FileNotFoundError', 'NotAFileError', 'PermissionError', 'FileTooLargeError', 'DecodeError', 'PatchParseError', 'PatchConflictError', 'InvalidArgumentError', 'InternalError'] as const;

const changeSchema = z.object({
  path: z.string().describe('Target file, absolute inside the workspace or relative to it.'),
  action: z.enum(['create', 'modify', 'delete']).describe('What the change does to the file.'),
  content: z.string().optional().describe('Full new content (create, or modify by replacement).'),
  patch: z.string().optional().describe('Unified diff for this file (modify, or create from /dev/null): either a full diff naming this path or bare @@ hunks.'),
});

type Change = z.output<typeof changeSchema>;

function patchForPath(patch: string, input: string, action: Change['action']): FilePatch[] {
  const trimmed = patch.trimStart();
  const text = trimmed.startsWith('@@')
    ? `${action === 'create' ? '--- /dev/null' : `--- a/${input}`}\n+++ b/${input}\n${trimmed}`
    : patch;
  return parseUnifiedDiff(text);
}

async function checkOne(ctx: ToolContext, change: Change, overlay: Map<string, string | null>): Promise<number | null> {
  const { path: input, action } = change;
  const resolved = await resolveConfined(ctx.ws, input);
  const shown = displayPath(ctx.ws, resolved.real);
  const current = overlay.has(resolved.real) ? overlay.get(resolved.real)! : resolved.exists ? (await currentText(ctx, input)).text : null;
  const invalid = (message: string): ToolError => new ToolError('InvalidArgumentError', `${shown}: ${message}`, { path: shown });
  if (change.content !== undefined && change.patch !== undefined) throw invalid('give content or patch, not both');
  let next: string | null;
  if (action === 'delete') {
    if (change.content !== undefined || change.patch !== undefined) throw invalid('a delete takes neither content nor patch');
    if (current === null) throw new ToolError('FileNotFoundError', `${shown}: cannot delete, the file does not exist`, { path: shown, path_attempted: input });
    next = null;
  } else {
    if (action === 'create' && current !== null) throw new ToolError('PatchConflictError', `${shown}: cannot create, the file already exists`, { path: shown, reason: 'already_exists' });
    if (action === 'modify' && current === null) throw new ToolError('FileNotFoundError', `${shown}: cannot modify, the file does not exist`, { path: shown, path_attempted: input });
    if (change.content !== undefined) {
      next = change.content;
    } else if (change.patch !== undefined) {
      const files = patchForPath(change.patch, input, action);
      next = current;
      for (const fp of files) {
        const named = (fp.newPath ?? fp.oldPath)!;
        const target = await resolveConfined(ctx.ws, named);
        if (target.real !== resolved.real) throw invalid(`the patch also changes ${named}; give each file its own change`);
        const applied = applyFilePatch(shown, next, fp);
        if (applied.deleted) throw invalid('the patch deletes the file; use action "delete"');
        next = applied.content;
      }
    } else {
      throw invalid(`a ${action} needs content or patch`);
    }
  }
  const size = next === null ? 0 : Buffer.byteLength(next, 'utf8');
  if (size > ctx.options.max_write_bytes) {
    throw new ToolError('FileTooLargeError', `${shown}: resulting content is ${size} bytes, over the write cap of ${ctx.options.max_write_bytes} bytes`, { path: shown, size_bytes: size, max_write_bytes: ctx.options.max_write_bytes });
  }
  overlay.set(resolved.real, next);
  return next === null ? null : size;
}

export const validateChangeSetTool = defineTool({
  name: 'repo.validate_change_set',
  friendlyName: 'validate_change_set',
  title: 'Validate change set',
  description:
    'Dry-run a set of file changes without writing anything. For each change (create, modify by full content or unified diff, delete) report whether its path is confined to the workspace, whether it respects the size caps, and whether it applies cleanly (a create of an existing file, a modify or delete of a missing one, or a hunk whose context does not match is a conflict). Changes are checked in order, each seeing the effect of the earlier ones. ok is true only when every change would succeed.',
  inputShape: {
    changes: z.array(changeSchema).min(1).max(1000).describe('The changes, in the order they would be applied.').meta({ examples: [[{ path: 'src/new.ts', action: 'create', content: 'export {};\n' }, { path: 'README.md', action: 'modify', patch: '@@ -1 +1 @@\n-old title\n+new title\n' }]] }),
  },
  outputSchema: resultSchema(
    {
      ok: z.boolean().describe('True when every change would succeed.'),
      results: z.array(z.object({
        index: z.number().int().min(0),
        path: z.string().describe('The path as given.'),
        action: z.enum(['create', 'modify', 'delete']),
        ok: z.boolean(),
        resulting_bytes: orNull(z.number().int().min(0), 'a delete or a failed change').describe('Size of the file after the change (null for a delete or a failed change).'),
        error_type: z.enum(verdictErrorTypes).optional(),
        error_message: z.string().optional(),
        error_details: openObject({}).optional(),
      })).describe('One verdict per change, in input order.'),
    },
    errorTypes,
  ),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  errorTypes,
  securityNotes: [
    'Never writes: it only resolves paths, reads current contents (within max_read_bytes) and applies patches in memory.',
    'Paths are checked with the same confinement rules as the writing tools, so a change reported ok would not be refused for its path.',
  ],
  explain: (_args, r) => {
    const results = r.results as { ok: boolean; path: string; error_type?: string }[];
    const failed = results.filter((x) => !x.ok);
    if (failed.length === 0) return `Checked ${plural(results.length, 'change')}: every one would apply cleanly; nothing was written.`;
    return `Checked ${plural(results.length, 'change')}: ${failed.length} would fail (${failed.map((x) => `${x.path}: ${x.error_type ?? 'error'}`).join(', ')}); nothing was written.`;
  },
  async run(ctx, args) {
    const overlay = new Map<string, string | null>();
    const results = [];
    for (const [index, change] of args.changes.entries()) {
      try {
        const size = await checkOne(ctx, change, overlay);
        results.push({ index, path: change.path, action: change.action, ok: true, resulting_bytes: size });
      } catch (e) {
        const err = isToolError(e) ? e : new ToolError('InternalError', e instanceof Error ? e.message : String(e));
        const type = (verdictErrorTypes as readonly string[]).includes(err.type) ? err.type : 'InternalError';
        results.push({ index, path: change.path, action: change.action, ok: false, resulting_bytes: null, error_type: type, error_message: err.message, error_details: err.details });
      }
    }
    return { ok: results.every((r) => r.ok), results };
  },
});
