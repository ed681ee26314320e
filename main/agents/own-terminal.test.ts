import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { underOwnTerminal } from './own-terminal';

describe.skipIf(process.platform !== 'linux')('underOwnTerminal', () => {
  const hostile = [`it's`, '$(touch /tmp/pwned-own-terminal)', '`id`', '"; id; "', 'a\nb', '\\', ' spaced ', ''];
  const printArgv = ['-e', 'console.log(JSON.stringify({ argv: process.argv.slice(1), shell: process.env.SHELL ?? null }))'];

  it('runs the command under script(1), its values as data to /bin/sh, and gives the agent its own SHELL back', () => {
    const wrapped = underOwnTerminal(process.execPath, [...printArgv, ...hostile], { SHELL: '/usr/bin/fish', PATH: '/usr/bin:/bin' })!;
    expect(wrapped.command).toBe('/usr/bin/script');
    expect(wrapped.args.slice(0, 3)).toEqual(['-q', '-e', '-c']);
    expect(wrapped.env.SHELL).toBe('/bin/sh');
    // What script runs: `$SHELL -c LINE`, with SHELL=/bin/sh.
    const r = spawnSync('/bin/sh', ['-c', wrapped.args[3]!], { encoding: 'utf8', env: wrapped.env });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ argv: hostile, shell: '/usr/bin/fish' });
  });

  it('leaves SHELL unset for the agent when it had none', () => {
    const wrapped = underOwnTerminal(process.execPath, printArgv, { PATH: '/usr/bin:/bin' })!;
    const r = spawnSync('/bin/sh', ['-c', wrapped.args[3]!], { encoding: 'utf8', env: wrapped.env });
    expect(JSON.parse(r.stdout)).toEqual({ argv: [], shell: null });
  });

  it('does not wrap a command env(1) would read as an assignment', () => {
    expect(underOwnTerminal('/opt/a=b/agent', [], {})).toBeUndefined();
  });
});
