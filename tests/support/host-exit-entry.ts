// A host that launches a profile and then leaves without host.shutdown(): by process.exit(0),
// or (with --throw) by an uncaught error handled the way the CLI handles one. Prints each
// server's {state, pid} as one JSON line on stdout first. Built by tests/support/build.ts.
// Usage: node host-exit.mjs PROFILE DATA_DIR [--throw]
import { Host } from '../../main/host';
import { killAllTrackedGroups } from '../../main/supervisor/reaper';
import { pinProfile } from './trust';

const [profile, dataDir, mode] = process.argv.slice(2);
pinProfile(dataDir!, profile!);
const host = new Host({ dataDir, stdinGraceMs: 300, termGraceMs: 500 });
const launch = await host.launch(profile!);
const report = Object.fromEntries(launch.statuses().map((s) => [s.id, { state: s.state, pid: s.pid }]));
process.stdout.write(`${JSON.stringify(report)}\n`, () => {
  if (mode === '--throw') {
    // The CLI's fatal path (main/cli/host-lifecycle.ts) on an uncaught error.
    process.on('uncaughtException', (err) => {
      process.stderr.write(`fatal: ${err.message}\n`);
      killAllTrackedGroups();
      process.exit(70);
    });
    setTimeout(() => {
      throw new Error('boom');
    }, 0);
  } else {
    process.exit(0);
  }
});
