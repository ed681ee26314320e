// What every long-running subcommand parses the same way: its flags (strict), --help, the
// profile reference, ports and the tool surface. A usage error prints the reason and the usage
// and means exit 2; help means exit 0.
import type { Host } from '../host';
import { ProfileError } from '../profiles/profile-error';
import type { ResolvedProfile, ToolSurface } from '../profiles/types';

export class UsageExit {
  constructor(readonly code: number) {}
}

/** The `--help/-h` flag every command takes; spread it into a command's parseArgs options. */
export const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Runs a command's own (strict) parseArgs; returns its values, or a UsageExit (2 for a usage
 * error, 0 for --help). The parse stays in the command so its flags keep their types.
 */
export function parseCommandArgs<V extends { help?: boolean }>(command: string, usage: string, parse: () => V): V | UsageExit {
  let values: V;
  try {
    values = parse();
  } catch (err) {
    return usageError(command, usage, (err as Error).message);
  }
  if (values.help) {
    process.stderr.write(`${usage}\n`);
    return new UsageExit(0);
  }
  return values;
}

/**
 * The flags of a command that runs a profile's servers (gateway, launch); spread into its own
 * parseArgs options next to the flags only it has.
 */
export const PROFILE_RUN_OPTIONS = {
  ...HELP,
  profile: { type: 'string', short: 'p' },
  'tool-surface': { type: 'string' },
  'data-dir': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
} as const;

export interface ProfileRunArgs {
  profile: string;
  surface: ToolSurface | undefined;
  /** One line to stderr (stdout may be protocol), unless --quiet. */
  log: (line: string) => void;
}

/** What PROFILE_RUN_OPTIONS parsed, checked: --profile given, --tool-surface one we know. */
export function checkProfileRunArgs(
  command: string,
  usage: string,
  args: { profile?: string; 'tool-surface'?: string; quiet?: boolean },
): ProfileRunArgs | UsageExit {
  if (!args.profile) return usageError(command, usage, '--profile is required');
  const surface = parseSurface(command, args['tool-surface']);
  if (surface instanceof UsageExit) return surface;
  const quiet = !!args.quiet;
  const log = (line: string) => {
    if (!quiet) process.stderr.write(`${line}\n`);
  };
  return { profile: args.profile, surface, log };
}

export function usageError(command: string, usage: string, message: string): UsageExit {
  process.stderr.write(`gatehouse ${command}: ${message}\n${usage}\n`);
  return new UsageExit(2);
}

/** A TCP port (0 = any free one), or a UsageExit naming the flag. */
export function parsePort(command: string, flag: string, value: string): number | UsageExit {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || value.trim() === '') {
    process.stderr.write(`gatehouse ${command}: --${flag} must be a port number, got '${value}'\n`);
    return new UsageExit(2);
  }
  return port;
}

export function parseSurface(command: string, value: string | undefined): ToolSurface | undefined | UsageExit {
  if (value === undefined) return undefined;
  if (value === 'friendly' || value === 'canonical' || value === 'both' || value === 'lazy') return value;
  process.stderr.write(`gatehouse ${command}: --tool-surface must be friendly, canonical, both or lazy, got '${value}'\n`);
  return new UsageExit(2);
}

/** Resolves a profile for a command; a refused one prints file:line:col and shuts the host down. */
export async function resolveForCommand(host: Host, command: string, ref: string): Promise<ResolvedProfile | UsageExit> {
  try {
    return host.resolve(ref);
  } catch (err) {
    process.stderr.write(`${err instanceof ProfileError ? err.message : `gatehouse ${command}: ${(err as Error).message}`}\n`);
    await host.shutdown('profile refused');
    return new UsageExit(1);
  }
}
