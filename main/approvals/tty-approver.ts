// A terminal approver for `gatehouse launch` / `gateway --http` run in a terminal.
//
// It must never use the process's stdin/stdout: for the stdio gateway those carry protocol
// bytes only. `openControllingTty()` opens the controlling terminal itself (/dev/tty) instead.
import fs from 'node:fs';
import tty from 'node:tty';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import type { ApprovalBroker, ApprovalChoice, ApprovalOutcome, PendingApproval } from './broker';

export interface TtyApproverOptions {
  input: Readable;
  output: Writable;
  /** Approver name and the `by` of its answers. Defaults to 'tty'. */
  name?: string;
  /** Pretty-printed arguments are cut to this many lines (default 24)… */
  maxArgLines?: number;
  /** …and this many characters in all (default 2000). */
  maxArgChars?: number;
}

const KEYS: Record<string, ApprovalChoice> = { a: 'allow_once', s: 'allow_session', t: 'allow_tool_session', d: 'deny', '\r': 'deny', '\n': 'deny' };
const CTRL_C = '\x03';
const LINE_CHARS = 160;

/**
 * Prompts for each pending request, one at a time, oldest first; answers with `by: 'tty'`.
 * Keys: `a` allow once, `s` allow for this session (same arguments), `t` allow the tool for
 * this session, `d` or Enter deny. On a real terminal one key answers (raw mode, only while a
 * prompt is up, so Ctrl-C keeps working otherwise); on anything else (a pipe, a PassThrough)
 * the first character of each line does, and an empty line denies.
 * A request answered elsewhere (the window, a timeout, a cancel) is dropped from the screen.
 * Returns `detach`.
 */
export function attachTtyApprover(broker: ApprovalBroker, opts: TtyApproverOptions): () => void {
  const { input, output } = opts;
  const name = opts.name ?? 'tty';
  const maxLines = opts.maxArgLines ?? 24;
  const maxChars = opts.maxArgChars ?? 2000;
  const ttyIn = input as Partial<tty.ReadStream>;
  const raw = ttyIn.isTTY === true && typeof ttyIn.setRawMode === 'function';
  const decoder = new StringDecoder('utf8');
  let current: PendingApproval | undefined;
  let answering = false;
  let lineBuffer = '';
  let detached = false;

  const write = (text: string) => {
    if (!detached && !output.destroyed && output.writable) output.write(text);
  };
  const setRaw = (on: boolean) => {
    if (raw) ttyIn.setRawMode!(on);
  };

  const next = () => {
    if (current || detached) return;
    current = broker.pending()[0];
    if (!current) return;
    write(renderPrompt(current, broker.pending().length - 1, maxLines, maxChars));
    setRaw(true);
  };

  const choose = (key: string): boolean => {
    if (!current) return false;
    if (key === CTRL_C) {
      choose('d');
      // Raw mode swallowed the terminal's SIGINT; the person meant to interrupt, so deny and pass it on.
      process.kill(process.pid, 'SIGINT');
      return true;
    }
    const choice = KEYS[key.toLowerCase()];
    if (!choice) {
      write('  press a, s, t or d (Enter denies) › ');
      return false;
    }
    answering = true;
    try {
      broker.answer(current.id, { choice, by: name });
    } finally {
      answering = false;
    }
    return true;
  };

  const onData = (chunk: Buffer | string) => {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    // Keys typed while nothing is asked are dropped: a stray `a` must not approve a request
    // the person has not seen yet. For the same reason one chunk (a paste, key repeat)
    // answers at most one request.
    if (!current) {
      lineBuffer = '';
      return;
    }
    if (raw) {
      for (const ch of text) if (choose(ch)) return;
      return;
    }
    lineBuffer += text;
    let nl: number;
    while ((nl = lineBuffer.indexOf('\n')) >= 0) {
      const line = lineBuffer.slice(0, nl).replace(/\r$/, '').trim();
      lineBuffer = lineBuffer.slice(nl + 1);
      if (choose(line === '' ? '\n' : line[0]!)) {
        lineBuffer = '';
        return;
      }
    }
  };

  const unsubscribe = broker.onEvent((e) => {
    if (e.type === 'requested') return next();
    if (!current || e.request.id !== current.id) return;
    setRaw(false);
    write(answering ? `${raw ? '\n' : ''}  → ${describe(e.outcome)}\n` : `\n  (no longer waiting: ${sanitize(e.outcome.reason, true)})\n`);
    current = undefined;
    next();
  });
  const detachApprover = broker.attachApprover({ name });
  const onOutputError = () => {};
  output.on('error', onOutputError);
  input.on('data', onData);
  next();

  return () => {
    if (detached) return;
    if (current) write('\n  (terminal approver detached)\n');
    detached = true;
    setRaw(false);
    current = undefined;
    input.off('data', onData);
    input.pause();
    output.off('error', onOutputError);
    unsubscribe();
    detachApprover();
  };
}

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

function renderPrompt(p: PendingApproval, waitingBehind: number, maxLines: number, maxChars: number): string {
  const tool = sanitize(p.tool, true);
  const lines = [
    '',
    `── Gatehouse: approval needed${waitingBehind > 0 ? ` (${waitingBehind} more waiting)` : ''} ──`,
    `  ${p.kind === 'tool' ? 'tool' : p.kind.padEnd(4)}    ${tool}${p.advertisedName && p.advertisedName !== p.tool ? ` (called as ${sanitize(p.advertisedName, true)})` : ''}`,
    `  server  ${sanitize(p.server, true)}`,
    `  why     ${sanitize(p.reason, true)}${p.rule ? ` [${sanitize(p.rule, true)}]` : ''}`,
    `  args    ${indent(formatArgs(p.args, maxLines, maxChars), '          ')}`,
    `  denied automatically after ${Math.round((p.expiresAt - p.createdAt) / 1000)}s`,
    `  [a] allow once  [s] allow for this session  [t] allow ${tool} for this session  [d/Enter] deny › `,
  ];
  return lines.join('\n');
}

function describe(o: ApprovalOutcome): string {
  return sanitize(o.reason, true);
}

/** Pretty JSON, cut to a bounded size so a huge argument cannot push the question off screen. */
export function formatArgs(args: unknown, maxLines: number, maxChars: number): string {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? 'undefined';
  } catch {
    text = String(args);
  }
  text = sanitize(text, false);
  const all = text.split('\n');
  const out: string[] = [];
  let used = 0;
  for (const line of all) {
    const cut = line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
    if (out.length >= maxLines || used + cut.length > maxChars) break;
    out.push(cut);
    used += cut.length + 1;
  }
  if (out.length < all.length) out.push(`… (${all.length - out.length} more lines)`);
  return out.join('\n');
}

/**
 * Arguments and names come from an agent or a server: escape control characters (C0, C1,
 * DEL) and bidi overrides so nothing can move the cursor, recolour or reorder the prompt and
 * make a person approve something other than what they read.
 */
export function sanitize(text: string, singleLine: boolean): string {
  // Matching control characters is the point here, hence the lint exemption.
  const re = singleLine ? /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g : /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g; // eslint-disable-line no-control-regex
  return text.replace(re, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function indent(text: string, pad: string): string {
  return text.split('\n').join(`\n${pad}`);
}
