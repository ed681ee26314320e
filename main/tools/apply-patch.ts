// repo.apply_patch (friendly: apply_patch): all hunks of all files, or nothing.
//
// Phase 1 reads every target and applies every hunk in memory; any parse error, conflict, size or
// confinement failure stops here with nothing written. Phase 2 stages every new content in a
// verified temp file beside its target. Phase 3 renames/unlinks; if one of those fails, the files
// already changed are restored from the contents read in phase 1.
import { z } from 'zod';
import { ToolError, isToolError } from './errors';
import { displayPath, removeConfined, resolveConfined, stageWrite, writeConfined, type StagedWrite } from './confine';
import { applyFilePatch, parseUnifiedDiff, type FilePatch } from './patch';
import { readConfinedText } from './fs-read';
import { defineTool, resultSchema, type ToolContext, plural } from './tool-kit';

const errorTypes = ['PatchParseError', 'PatchConflictError', 'PathOutsideWorkspaceError', 'FileNotFoundError', 'NotAFileError', 'PermissionError', 'FileTooLargeError', 'DecodeError', 'InvalidArgumentError', 'InternalError'] as const;

export type FileAction = 'created' | 'modified' | 'deleted';

export interface PlannedFile {
  input: string;
  real: string;
  action: FileAction;
  original: string | null;
  next: string | null;
  hunksApplied: number;
  maxOffset: number;
}

/** Reads the current text of a confined path, or null when it does not exist. */
export async function currentText(ctx: ToolContext, input: string): Promise<{ real: string; text: string | null }> {
  const resolved = await resolveConfined(ctx.ws, input);
  if (!resolved.exists) return { real: resolved.real, text: null };
  const r = await readConfinedText(ctx, input, { encoding: 'utf-8' });
  return { real: r.real, text: r.text };
}

/** Phase 1: everything in memory; throws on the first problem. Shared with validate_change_set. */
export async function planPatch(ctx: ToolContext, files: FilePatch[], overlay = new Map<string, string | null>()): Promise<PlannedFile[]> {
  const plans = new Map<string, PlannedFile>();
  for (const fp of files) {
    const input = (fp.newPath ?? fp.oldPath)!;
    const { real } = await resolveConfined(ctx.ws, input);
    let plan = plans.get(real);
    if (!plan) {
      const current = overlay.has(real) ? { real, text: overlay.get(real)! } : await currentText(ctx, input);
      plan = { input, real, action: 'modified', original: current.text, next: current.text, hunksApplied: 0, maxOffset: 0 };
      plans.set(real, plan);
    }
    const shown = displayPath(ctx.ws, real);
    const applied = applyFilePatch(shown, plan.next, fp);
    plan.next = applied.deleted ? null : applied.content;
    plan.hunksApplied += applied.hunksApplied;
    plan.maxOffset = Math.max(plan.maxOffset, applied.maxOffset);
    plan.action = plan.original === null ? 'created' : plan.next === null ? 'deleted' : 'modified';
    if (plan.next !== null) {
      const size = Buffer.byteLength(plan.next, 'utf8');
      if (size > ctx.options.max_write_bytes) {
        throw new ToolError('FileTooLargeError', `${shown}: patched content is ${size} bytes, over the write cap of ${ctx.options.max_write_bytes} bytes`, {
          path: shown, path_attempted: input, size_bytes: size, max_write_bytes: ctx.options.max_write_bytes,
        });
      }
    }
  }
  return [...plans.values()].filter((p) => !(p.original === null && p.next === null));
}

async function restore(ctx: ToolContext, done: PlannedFile[]): Promise<string[]> {
  const failed: string[] = [];
  for (const p of done.reverse()) {
    try {
      if (p.original === null) await removeConfined(ctx.ws, p.real, p.input);
      else await writeConfined(ctx.ws, p.input, Buffer.from(p.original, 'utf8'), { createParents: true });
    } catch {
      failed.push(displayPath(ctx.ws, p.real));
    }
  }
  return failed;
}

export const applyPatchTool = defineTool({
  name: 'repo.apply_patch',
  friendlyName: 'apply_patch',
  title: 'Apply patch',
  description:
    'Apply a unified diff (git style with a/ b/ prefixes or plain diff -u; several files and hunks; new files via --- /dev/null, deletions via +++ /dev/null; "\\ No newline at end of file" honoured) to UTF-8 text files in the workspace. Every hunk must match its context exactly (a hunk may be found at a shifted line offset); if any hunk of any file does not apply, nothing is written. Renames, mode changes and binary patches are not supported.',
  inputShape: {
    patch: z.string().min(1).describe('The unified diff text.').meta({ examples: ['--- a/hello.txt\n+++ b/hello.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n'] }),
  },
  outputSchema: resultSchema(
    {
      files: z.array(z.object({
        path: z.string().describe('Workspace-relative path.'),
        action: z.enum(['created', 'modified', 'deleted']),
        hunks_applied: z.number().int().min(0),
        max_offset_lines: z.number().int().min(0).describe('Largest distance between where a hunk said it applies and where it matched.'),
      })).describe('One entry per changed file, in patch order.'),
      files_changed: z.number().int().min(0).describe('Number of files created, modified or deleted.'),
    },
    errorTypes,
  ),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  errorTypes,
  securityNotes: [
    'Every file named by the patch is confined to the workspace with the same rules as fs.read/fs.write (no `..` escape, absolute path outside, drive/UNC forms, NUL bytes or symlinks leading out).',
    'All or nothing: every hunk is verified in memory before anything is written; writes go through verified temp files and renames, and a failure while committing restores the files already changed.',
    'Files are read within max_read_bytes and each result must fit max_write_bytes (server options).',
  ],
  explain: (_args, r) => {
    const files = r.files as { path: string; action: string; hunks_applied: number }[];
    const hunks = files.reduce((n, f) => n + f.hunks_applied, 0);
    return `Successfully applied ${plural(hunks, 'hunk')} to ${plural(files.length, 'file')}: ${files.map((f) => `${f.path} (${f.action})`).join(', ')}.`;
  },
  async run(ctx, args) {
    const files = parseUnifiedDiff(args.patch);
    const plans = await planPatch(ctx, files);
    const staged: (StagedWrite | null)[] = [];
    try {
      for (const p of plans) staged.push(p.next === null ? null : await stageWrite(ctx.ws, p.input, Buffer.from(p.next, 'utf8'), { createParents: true, hooks: ctx.hooks }));
    } catch (e) {
      await Promise.all(staged.map((s) => s?.discard()));
      throw e;
    }
    const done: PlannedFile[] = [];
    for (const [index, p] of plans.entries()) {
      try {
        const s = staged[index];
        if (s) await s.commit();
        else await removeConfined(ctx.ws, p.real, p.input);
        done.push(p);
      } catch (e) {
        await Promise.all(staged.slice(index).map((s) => s?.discard()));
        const notRestored = await restore(ctx, done);
        const err = isToolError(e) ? e : new ToolError('InternalError', String(e));
        throw new ToolError(err.type, `${err.message}; ${done.length} file(s) already changed were ${notRestored.length ? `restored except ${notRestored.join(', ')}` : 'restored'}`, {
          ...err.details, rolled_back: true, not_restored: notRestored,
        });
      }
    }
    return {
      files: plans.map((p) => ({ path: displayPath(ctx.ws, p.real), action: p.action, hunks_applied: p.hunksApplied, max_offset_lines: p.maxOffset })),
      files_changed: plans.length,
    };
  },
});
