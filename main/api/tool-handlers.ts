// Host-API commands of the tool console: the launch's tool surface as the agent sees it, with
// what the policy says of each tool, and calls the person makes from the window (they go through
// the gateway like an agent's, as the UI's own session).
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CommandOutput } from '../../common/host-api';
import { toAdvertised } from '../protocol/tool-names';
import type { ApiContext } from './api-context';
import type { ConsoleCalls } from './console-calls';
import type { Handlers } from './errors';

/** How the console's own calls name their client in Traffic (its agent id stays `ui-<shell>`). */
export const CONSOLE_CLIENT = 'Gatehouse Tool console';

type FlowMark = NonNullable<CommandOutput<'tools:list'>[number]['flowMarks']>[number];
const FLOW_MARKS: readonly string[] = ['private', 'untrusted', 'exfil'] satisfies FlowMark[];
const isFlowMark = (m: string): m is FlowMark => FLOW_MARKS.includes(m);

export function toolHandlers(ctx: ApiContext, consoleCalls: ConsoleCalls) {
  const { uiSession, launchOf } = ctx;
  let consoleCallCount = 0;
  return {
    'tools:list': (input) => {
      const launch = launchOf(input.launchId);
      const surface = launch.gateway.currentSurface();
      // The window is where approvals are answered, so it shows what the policy says even while
      // no approver is attached yet (a held server still shows as unavailable).
      const states = launch.gateway.capabilitiesReport().tool_states;
      const status = new Map(states.map((t) => [t.name, t.reason_code === 'no_approver' ? t.policy_status : t.status]));
      const marks = new Map(states.map((t) => [t.name, (t.flow_marks ?? []).filter(isFlowMark)]));
      return surface.tools.map((t) => {
        const out: CommandOutput<'tools:list'>[number] = {
          name: t.advertised[0] ?? toAdvertised(t.canonical),
          canonical: t.canonical,
          server: t.server,
          inputSchema: { ...(t.tool.inputSchema as Record<string, unknown>) },
          // The capabilities tool is not in its own report: it is always callable.
          status: status.get(t.canonical) ?? 'callable',
        };
        if (t.tool.title !== undefined) out.title = t.tool.title;
        if (t.tool.description !== undefined) out.description = t.tool.description;
        if (t.tool.outputSchema) out.outputSchema = { ...(t.tool.outputSchema as Record<string, unknown>) };
        if (t.tool.annotations) out.annotations = { ...t.tool.annotations };
        const m = marks.get(t.canonical);
        if (m?.length) out.flowMarks = m;
        return out;
      });
    },

    'tools:call': async (input) => {
      const launch = launchOf(input.launchId);
      // A request id of our own makes the exchange id known before the call returns, so the
      // window can find the call's traffic rows and its approval (`ui-web#console-3`).
      const requestId = `console-${++consoleCallCount}`;
      const exchange = `${uiSession}#${requestId}`;
      consoleCalls.start(exchange, launch.id, input.name, input.arguments);
      let output: CommandOutput<'tools:call'>;
      try {
        const leg = { tap: ctx.host.tap, label: { agentName: CONSOLE_CLIENT } };
        const result = await launch.gateway.callTool(input.name, input.arguments, { agentSession: uiSession, requestId, leg });
        output = { result: result as CommandOutput<'tools:call'>['result'], exchange };
      } catch (err) {
        // Unknown tool, or a JSON-RPC error from the server: shown to the person, not thrown.
        const code = (err as { code?: unknown }).code;
        const message = err instanceof McpError || typeof code === 'number' ? `${(err as Error).message} (code ${String(code)})` : (err as Error).message;
        output = { error: message, exchange };
      }
      consoleCalls.finish(exchange, output);
      return output;
    },
  } satisfies Partial<Handlers>;
}
