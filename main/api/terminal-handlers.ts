// Host-API commands of the agent terminals (main/agents/): presets, open, input, resize, flow
// control acknowledgements, close and scrollback replay.
import type { Host, Launch } from '../host';
import type { Handlers } from './errors';
import type { TerminalLaunchInfo, TerminalRecord } from '../agents/terminal-manager';
import { HostApiError } from './errors';
import { terminalSummary } from './shapes';

export interface TerminalDeps {
  launchOf(launchId: string): Launch;
  terminalLaunch(launch: Launch): TerminalLaunchInfo;
  /** Last known record of each terminal, so a `closed` event can still describe it. */
  lastTerminal: Map<string, TerminalRecord>;
}

export function terminalHandlers(host: Host, { launchOf, terminalLaunch, lastTerminal }: TerminalDeps) {
  return {
    'terminals:list': (input) => host.terminals.list(input.launchId).map(terminalSummary),
    'terminals:presets': async (input) => {
      const launch = launchOf(input.launchId);
      const own = launch.profile.agent?.preset;
      const presets = ['claude-code', 'codex', 'gemini', 'shell'] as const;
      const wanted = own && !presets.includes(own as (typeof presets)[number]) ? [own, ...presets] : presets;
      return Promise.all(
        wanted.map(async (preset) => {
          const agent = preset === own ? {} : { preset, command: undefined, args: [] };
          const described = await host.terminals.describe(terminalLaunch(launch), { agent });
          return {
            preset,
            label: described.title,
            available: described.available,
            ...(described.available ? {} : { reason: described.reason, ...(described.install ? { install: described.install } : {}) }),
            isProfileAgent: preset === own,
          };
        }),
      );
    },
    'terminals:open': async (input) => {
      const launch = launchOf(input.launchId);
      const own = launch.profile.agent?.preset;
      const agent = input.preset === undefined || input.preset === own ? {} : { preset: input.preset, command: undefined, args: [] };
      const opened = await host.openTerminal(input.launchId, { agent, cols: input.cols, rows: input.rows });
      if ('unavailable' in opened) return { unavailable: opened.unavailable, ...(opened.install ? { install: opened.install } : {}) };
      lastTerminal.set(opened.id, opened);
      return { terminal: terminalSummary(opened) };
    },
    'terminals:input': (input) => {
      const t = host.terminals.get(input.id);
      if (!t) throw new HostApiError(`no terminal '${input.id}'`);
      t.write(input.data);
      return { ok: true };
    },
    'terminals:resize': (input) => {
      const t = host.terminals.get(input.id);
      if (!t) throw new HostApiError(`no terminal '${input.id}'`);
      t.resize(input.cols, input.rows);
      return { ok: true };
    },
    'terminals:ack': (input) => {
      host.terminals.get(input.id)?.acknowledge(input.chars);
      return { ok: true };
    },
    'terminals:close': (input) => {
      const record = host.terminals.list().find((t) => t.id === input.id);
      if (record) lastTerminal.set(input.id, record);
      host.terminals.close(input.id);
      return { ok: record !== undefined };
    },
    'terminals:replay': (input) => {
      const t = host.terminals.get(input.id);
      if (!t) throw new HostApiError(`no terminal '${input.id}'`);
      return { data: t.replay() };
    },
  } satisfies Partial<Handlers>;
}
