// `gatehouse tools spec --profile P [--server S] [--out FILE]`: writes MCP_TOOL_SPECIFICATION.md
// for the tools a launched profile's servers advertise.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Host } from '../host';
import { ProfileError } from '../profiles/profile-error';

const USAGE = 'usage: gatehouse tools spec --profile NAME|FILE [--server ID] [--out FILE]';

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'spec') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let args;
  try {
    args = parseArgs({
      args: rest,
      options: { profile: { type: 'string', short: 'p' }, server: { type: 'string' }, out: { type: 'string' }, 'data-dir': { type: 'string' } },
      strict: true,
    }).values;
  } catch (err) {
    process.stderr.write(`gatehouse tools: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!args.profile) {
    process.stderr.write(`gatehouse tools: --profile is required\n${USAGE}\n`);
    return 2;
  }
  const { generateProfileToolSpec } = await import('../gateway/tool-spec');
  const host = new Host({ dataDir: args['data-dir'], audit: false });
  try {
    const profile = host.resolve(args.profile);
    if (args.server && !profile.servers.some((s) => s.id === args.server)) {
      process.stderr.write(`gatehouse tools: profile '${profile.name}' has no server '${args.server}' (it has ${profile.servers.map((s) => s.id).join(', ')})\n`);
      return 1;
    }
    const launch = await host.launch(profile, { kind: 'launch' });
    const markdown = generateProfileToolSpec(launch, args.server);
    const out = args.out ?? 'MCP_TOOL_SPECIFICATION.md';
    writeFileSync(out, markdown);
    process.stderr.write(`gatehouse tools: wrote ${out}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`${err instanceof ProfileError ? err.message : `gatehouse tools: ${(err as Error).message}`}\n`);
    return 1;
  } finally {
    await host.shutdown('tools spec done');
  }
}
