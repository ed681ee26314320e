// Loading a host command's result into a component, with loading/error state and reload.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { CommandInput, CommandName, CommandOutput } from '../../common/host-api';
import { useHostApi } from '../api/context';

export interface CommandState<C extends CommandName> {
  data: CommandOutput<C> | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `command` when `input` changes (compared as JSON); `null` input means "not now". */
export function useCommand<C extends CommandName>(command: C, input: CommandInput<C> | null): CommandState<C> {
  const api = useHostApi();
  const [data, setData] = useState<CommandOutput<C> | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(input !== null);
  const [tick, setTick] = useState(0);
  const key = input === null ? null : JSON.stringify(input);
  const seq = useRef(0);

  useEffect(() => {
    if (key === null) {
      setLoading(false);
      return;
    }
    const my = ++seq.current;
    setLoading(true);
    api.call(command, JSON.parse(key) as CommandInput<C>).then(
      (out) => {
        if (my !== seq.current) return;
        setData(out);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (my !== seq.current) return;
        setError(e);
        setLoading(false);
      },
    );
  }, [api, command, key, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

/** True when the host does not know a command (an older host, or a feature still to land). */
export function isUnknownCommand(e: unknown): boolean {
  const text = e instanceof Error ? e.message : String(e);
  return /unknown command|not (implemented|supported)|no handler/i.test(text);
}
