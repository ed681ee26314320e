import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withPrelude } from './launch-prelude';

const run = (c: { command: string; args: string[] }) => spawnSync(c.command, c.args, { encoding: 'utf8' });

describe('withPrelude', () => {
  it('is the command itself when there is nothing to do first', () => {
    expect(withPrelude('/bin/echo', ['a'], {})).toEqual({ command: '/bin/echo', args: ['a'] });
  });

  it('passes hostile values as data, opens fds and sets rlimits before exec', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'prelude-'));
    const file = path.join(dir, `it's $(touch pwned) "x".txt`);
    writeFileSync(file, 'filter-bytes');
    const c = withPrelude('/bin/sh', ['-c', 'cat <&3; echo; cat /proc/self/limits | grep -E "processes|address space"; echo "$1"', 'argv0', '$(id) `id` ;id'], {
      openFds: [{ fd: 3, file }],
      rlimits: { processes: 77, addressSpaceBytes: 3 * 1024 ** 3 },
    });
    const r = run(c);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('filter-bytes');
    expect(r.stdout).toMatch(/Max processes\s+77\s+77/);
    expect(r.stdout).toMatch(/Max address space\s+3221225472\s+3221225472/);
    expect(r.stdout).toContain('$(id) `id` ;id');
  });

  it('fails the start when a cgroup cannot be joined', () => {
    const r = run(withPrelude('/bin/true', [], { joinCgroups: ['/nonexistent/cgroup.procs'] }));
    expect(r.status).toBe(125);
  });
});
