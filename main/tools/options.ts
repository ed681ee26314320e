// Command line of the workspace tools server: `--workspace /abs/root [--options '<json>']`.
// The supervisor spawns it with a least-privilege environment, so everything it needs comes
// from argv, never from environment variables.
import { z } from 'zod';

const MiB = 1024 * 1024;

export const ToolsServerOptionsSchema = z
  .object({
    // Upper bounds exist because every read/response is held in memory once as the result string.
    max_read_bytes: z.number().int().min(1).max(64 * MiB).default(MiB),
    max_write_bytes: z.number().int().min(1).max(64 * MiB).default(MiB),
    // A hard link's other names may lie outside the workspace: reads of such files are refused
    // unless a profile says its workspace holds them legitimately (pnpm stores, `git clone --local`).
    allow_hardlinked_reads: z.boolean().default(false),
    exec: z
      .object({
        timeout_ms: z.number().int().min(1).max(3_600_000).default(30_000),
        max_output_bytes: z.number().int().min(1).max(64 * MiB).default(MiB),
        allowed_commands: z.array(z.string().min(1)).optional(),
      })
      .strict()
      .default({ timeout_ms: 30_000, max_output_bytes: MiB }),
    http: z
      .object({
        allow_hosts: z.array(z.string().min(1)).default([]),
        timeout_ms: z.number().int().min(1).max(600_000).default(30_000),
        max_body_bytes: z.number().int().min(1).max(64 * MiB).default(MiB),
        max_redirects: z.number().int().min(0).max(20).default(5),
      })
      .strict()
      .default({ allow_hosts: [], timeout_ms: 30_000, max_body_bytes: MiB, max_redirects: 5 }),
  })
  .strict();

export type ToolsServerOptions = z.output<typeof ToolsServerOptionsSchema>;
export type ToolsServerOptionsInput = z.input<typeof ToolsServerOptionsSchema>;

export interface ToolsServerArgs {
  workspace: string;
  options: ToolsServerOptions;
}

export class UsageError extends Error {}

export function defaultOptions(): ToolsServerOptions {
  return ToolsServerOptionsSchema.parse({});
}

export function parseOptions(input: unknown): ToolsServerOptions {
  const parsed = ToolsServerOptionsSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(options)'}: ${i.message}`);
    throw new UsageError(`invalid --options: ${issues.join('; ')}`);
  }
  return parsed.data;
}

export function parseServerArgs(argv: readonly string[]): ToolsServerArgs {
  let workspace: string | undefined;
  let optionsJson: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === '--workspace') workspace = value();
    else if (flag === '--options') optionsJson = value();
    else throw new UsageError(`unknown argument ${JSON.stringify(arg)}; expected --workspace /abs/root [--options '<json>']`);
  }
  if (!workspace) throw new UsageError('--workspace /abs/root is required');
  if (!workspace.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(workspace)) {
    throw new UsageError(`--workspace must be an absolute path, got ${JSON.stringify(workspace)}`);
  }
  let raw: unknown = {};
  if (optionsJson !== undefined) {
    try {
      raw = JSON.parse(optionsJson);
    } catch (e) {
      throw new UsageError(`--options is not valid JSON: ${(e as Error).message}`);
    }
  }
  return { workspace, options: parseOptions(raw) };
}
