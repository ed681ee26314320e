// Host-API commands about the host itself: what it is (host:info), everything a window needs to
// draw at once when it opens or reloads (host:snapshot), and the doctor's report (doctor:run).
import { appVersion } from '../paths';
import { exchangeRecord } from '../gateway/exchanges';
import { runDoctor } from '../doctor/run-doctor';
import type { DoctorReport } from '../../common/host-api-doctor';
import type { ApiContext } from './api-context';
import type { ConsoleCalls } from './console-calls';
import type { Handlers } from './errors';
import { launchSummary, pendingApproval, terminalSummary } from './shapes';

const DEFAULT_TRAFFIC_REPLAY = 2_000;
const DEFAULT_STDERR_REPLAY = 2_000;

export interface HostHandlerOptions {
  consoleCalls: ConsoleCalls;
  /** Traffic kept in `host:snapshot` when the window does not say. */
  defaultTrafficReplay?: number;
  defaultStderrReplay?: number;
}

export function hostHandlers(ctx: ApiContext, opts: HostHandlerOptions) {
  const { host, shell, runningLaunches } = ctx;
  const { consoleCalls } = opts;
  const version = appVersion();
  let doctorReport: DoctorReport | undefined;
  return {
    'host:info': () => ({ version, dataDir: host.dataDir, shell, platform: process.platform }),
    'host:snapshot': (input) => ({
      launches: runningLaunches().map(launchSummary),
      traffic: host.tap.snapshot({ limit: input.trafficLimit ?? opts.defaultTrafficReplay ?? DEFAULT_TRAFFIC_REPLAY }),
      trafficStats: host.tap.stats(),
      stderr: host.stderrBus.snapshot({ limit: input.stderrLimit ?? opts.defaultStderrReplay ?? DEFAULT_STDERR_REPLAY }),
      stderrStats: host.stderrBus.stats(),
      approvals: host.broker.pending().map(pendingApproval),
      approvalNotices: host.broker.notices.list(),
      terminals: host.terminals.list().map(terminalSummary),
      consoleCalls: consoleCalls.list(),
      exchanges: runningLaunches().flatMap((l) => l.gateway.exchanges.snapshot().map(exchangeRecord)),
    }),

    'doctor:run': (input) => {
      if (input.refresh || !doctorReport) doctorReport = runDoctor({ env: host.env, dataDir: host.dataDir, secretStore: () => host.auth.store });
      return doctorReport;
    },
  } satisfies Partial<Handlers>;
}

