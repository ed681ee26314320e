// The process's controlling terminal, opened by path (/dev/tty), for the terminal approver and
// the launch-consent prompt: never stdin/stdout, which carry protocol bytes for the stdio gateway.
import fs from 'node:fs';
import tty from 'node:tty';

export interface ControllingTty {
  input: tty.ReadStream;
  output: tty.WriteStream;
  close(): void;
}

/**
 * Opens the controlling terminal for reading and writing (`/dev/tty`; `CONIN$`/`CONOUT$` on
 * Windows), or returns undefined when the process has none (a daemon, a GUI-launched host, CI).
 */
export function openControllingTty(): ControllingTty | undefined {
  const [inPath, outPath] = process.platform === 'win32' ? ['CONIN$', 'CONOUT$'] : ['/dev/tty', '/dev/tty'];
  let rfd: number | undefined;
  let wfd: number | undefined;
  try {
    rfd = fs.openSync(inPath, 'r');
    wfd = fs.openSync(outPath, 'w');
    if (!tty.isatty(rfd) || !tty.isatty(wfd)) throw new Error('not a terminal');
    const input = new tty.ReadStream(rfd);
    const output = new tty.WriteStream(wfd);
    return {
      input,
      output,
      close() {
        try {
          if (input.isRaw) input.setRawMode(false);
        } catch {}
        input.destroy();
        output.destroy();
      },
    };
  } catch {
    for (const fd of [rfd, wfd]) {
      if (fd === undefined) continue;
      try {
        fs.closeSync(fd);
      } catch {}
    }
    return undefined;
  }
}
