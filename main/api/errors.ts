// What the host API's handlers share: the error a caller sees, and the type of a handler table
// (one function per command of common/host-api.ts, its input already validated).
import type { z } from 'zod';
import type { CommandName, CommandOutput, commands } from '../../common/host-api';

/** What a caller is told when a command fails: one line, no stack. */
export class HostApiError extends Error {
  override readonly name = 'HostApiError';
}

export type Handlers = { [C in CommandName]: (input: z.infer<(typeof commands)[C]['input']>) => Promise<CommandOutput<C>> | CommandOutput<C> };
