// A terminal approver for `gatehouse launch` / `gateway --http` run in a terminal.
//
// It must never use the process's stdin/stdout: for the stdio gateway those carry protocol
// bytes only: `openControllingTty()` (controlling-tty.ts) opens the terminal itself (/dev/tty).
// This file is the prompt loop (one request at a time, keys or lines in, answers to the broker);
// what it draws is tty-prompts.ts and tty-form-field.ts.
import type tty from 'node:tty';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import type { ApprovalBroker, ApprovalChoice, PendingApproval } from './broker';
import { isObject } from '../base/is-object';
import { acceptAnswer, isUrlElicitation } from './questions';
import { cut, formatText, indent, safeJson, sanitize } from './terminal-text';
import { readField, renderField } from './tty-form-field';
import { describe, renderQuestion, toolPrompt } from './tty-prompts';

export interface TtyApproverOptions {
  input: Readable;
  output: Writable;
  /** Approver name and the `by` of its answers. Defaults to 'tty'. */
  name?: string;
  /**
   * A tool call's arguments and a server's question are never cut: they are wrapped to the
   * terminal's width and paged, this many lines a page (default: the terminal's rows less the
   * prompt around them, else 20).
   */
  pageLines?: number;
  /** Width the arguments are wrapped to (default: the terminal's columns, else 120). */
  columns?: number;
  /**
   * After Ctrl-C has declined the prompt on screen (raw mode swallowed the terminal's SIGINT).
   * Default: raise SIGINT on this process, as the person meant to interrupt.
   */
  onInterrupt?: () => void;
}

const CTRL_C = '\x03';
const CTRL_U = '\x15';
/** Longest line the raw-mode line editor keeps (a sampling reply is at most 100 kB anyway). */
const MAX_EDIT_CHARS = 200_000;
// Typed characters that are never echoed or kept: controls and bidi overrides.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/; // eslint-disable-line no-control-regex

/** What the prompt on screen takes: one key (a choice), or a line (a value, a reply). */
type Step =
  | { mode: 'key'; keys: Record<string, () => void>; hint: string }
  /** Returns true when the line answered the prompt (the rest of the chunk is dropped). */
  | { mode: 'line'; onLine: (line: string) => boolean };

/**
 * Prompts for each pending request, one at a time, oldest first; answers with `by: 'tty'`.
 * Tool approvals: `a` allow once, `s` allow for this session (same arguments), `t` allow the
 * tool for this session, `d` or Enter deny. Questions (a server's elicitation or sampling
 * request): `a` answers (each field of an elicitation form in turn, then accept / decline /
 * cancel; a URL elicitation is accepted; a sampling reply is written, then sent), `d` or Enter
 * declines, `c` cancels an elicitation. On a real terminal one key answers a choice (raw mode,
 * only while a prompt is up, so Ctrl-C keeps working otherwise) and values are typed on a line
 * with a minimal editor; on anything else (a pipe, a PassThrough) the first character of each
 * line is the key, and a whole line is the value. Ctrl-C during a prompt declines it.
 * A request answered elsewhere (the window, a timeout, a cancel) is dropped from the screen.
 * Returns `detach`.
 */
export function attachTtyApprover(broker: ApprovalBroker, opts: TtyApproverOptions): () => void {
  const { input, output } = opts;
  const name = opts.name ?? 'tty';
  const outTty = output as Partial<tty.WriteStream>;
  const columns = opts.columns ?? (outTty.columns && outTty.columns > 0 ? outTty.columns : 120);
  // The head (5 lines) and the page line stay on screen with each page.
  const pageLines = Math.max(3, opts.pageLines ?? (outTty.rows && outTty.rows > 0 ? outTty.rows - 7 : 20));
  const onInterrupt = opts.onInterrupt ?? (() => process.kill(process.pid, 'SIGINT'));
  const ttyIn = input as Partial<tty.ReadStream>;
  const raw = ttyIn.isTTY === true && typeof ttyIn.setRawMode === 'function';
  const decoder = new StringDecoder('utf8');
  let current: PendingApproval | undefined;
  let step: Step | undefined;
  let answering = false;
  let lineBuffer = '';
  let detached = false;
  // The raw-mode line editor: the line being typed, an escape sequence being skipped, a CR seen.
  let edit = '';
  let escape: 0 | 1 | 2 = 0;
  let afterCR = false;

  const write = (text: string) => {
    if (!detached && !output.destroyed && output.writable) output.write(text);
  };
  const setRaw = (on: boolean) => {
    if (raw) ttyIn.setRawMode!(on);
  };

  const answer = (choice: ApprovalChoice, content?: unknown): boolean => {
    if (!current) return false;
    answering = true;
    try {
      return broker.answer(current.id, content === undefined ? { choice, by: name } : { choice, by: name, content });
    } finally {
      answering = false;
    }
  };
  const keyStep = (keys: Record<string, () => void>, hint: string, prompt: string): void => {
    write(prompt);
    step = { mode: 'key', keys, hint };
  };
  const lineStep = (prompt: string, onLine: (line: string) => boolean): void => {
    write(prompt);
    edit = '';
    step = { mode: 'line', onLine };
  };

  /**
   * `lines` a page at a time (space or Enter for the next; d denies at any point), then `done`.
   * The answer keys exist only after the last page: what a person allows is what they were shown
   * whole. Each page takes its own key press (a chunk turns at most one page, as it answers at
   * most one prompt), so a paste of spaces and an `a` cannot page through and allow unread.
   */
  const paged = (lines: string[], done: () => void, deny: () => void): void => {
    let shown = 0;
    const more = (): void => {
      const page = lines.slice(shown, shown + pageLines);
      shown += page.length;
      // The first page goes on under the head; later ones start where the key press left the cursor.
      if (page.length) write(`${shown === page.length ? '\n' : ''}${page.join('\n')}`);
      write('\n');
      if (shown >= lines.length) return done();
      keyStep(
        { ' ': more, '\r': more, '\n': more, d: deny },
        '\n  read to the end first: space or Enter shows more, d denies › ',
        `  -- ${shown} of ${lines.length} lines shown: space/Enter for more, [d] deny -- › `,
      );
    };
    more();
  };

  const toolPromptStep = (p: PendingApproval, behind: number) => {
    const allow = (choice: ApprovalChoice) => () => void answer(choice);
    const deny = allow('deny');
    const { head, body, keys } = toolPrompt(p, behind, columns);
    write(head);
    paged(body, () => keyStep({ a: allow('allow_once'), s: allow('allow_session'), t: allow('allow_tool_session'), d: deny, '\r': deny, '\n': deny }, '  press a, s, t or d (Enter denies) › ', keys), deny);
  };

  const decline = () => void answer('decline');
  const cancel = () => void answer('cancel');

  const elicitationForm = (q: Record<string, unknown>) => {
    const schema = isObject(q.requestedSchema) ? q.requestedSchema : {};
    const props = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
    const keys = Object.keys(props);
    let content: Record<string, unknown> = {};
    let i = 0;
    const askField = (): void => {
      if (i >= keys.length) return confirm();
      const key = keys[i]!;
      const prop = isObject(props[key]) ? props[key] : {};
      const isRequired = required.has(key);
      const prompt = '  › ';
      write(renderField(key, prop, isRequired, i + 1, keys.length));
      lineStep(prompt, (line) => {
        const read = readField(key, prop, isRequired, line);
        if ('error' in read) {
          write(`  ✗ ${sanitize(read.error, true)}: try again\n${prompt}`);
          edit = '';
          return true;
        }
        if (read.value === undefined) delete content[key];
        else content[key] = read.value;
        i++;
        askField();
        return true;
      });
    };
    const confirm = (): void => {
      const check = acceptAnswer('elicitation', q, content);
      if (!check.ok) {
        write(`  ✗ ${sanitize(check.error, true)}: answer again\n`);
        restart();
        return;
      }
      const shown = Object.entries(content).map(([k, v]) => `    ${sanitize(k, true)} = ${cut(sanitize(safeJson(v), true))}`);
      const answerNow = { ...content };
      keyStep(
        { a: () => void answer('accept', answerNow), d: decline, c: cancel, e: restart, '\r': decline, '\n': decline },
        '  press a, e, d or c (Enter declines) › ',
        `  your answer:${shown.length ? `\n${shown.join('\n')}` : ' (no values)'}\n  [a] accept  [e] edit again  [d/Enter] decline  [c] cancel › `,
      );
    };
    const restart = (): void => {
      content = {};
      i = 0;
      askField();
    };
    keyStep({ a: restart, d: decline, c: cancel, '\r': decline, '\n': decline }, '  press a, d or c (Enter declines) › ', '  [a] answer  [d/Enter] decline  [c] cancel › ');
  };

  const samplingReply = (q: Record<string, unknown>) => {
    const several = '  (several lines; end with a line with a single ".")\n';
    const startReply = (): void => {
      let lines: string[] | undefined;
      let size = 0;
      lineStep('  reply (one line; an empty line starts several) › ', (line) => {
        if (lines === undefined) {
          if (line !== '') return done(line);
          lines = [];
          write(several);
          return false; // not an answer yet: a pasted reply keeps coming in this chunk
        }
        if (line === '.') return done(lines.join('\n'));
        // Kept bounded: past the limit the reply is refused when it ends anyway.
        if (size <= 4 * 100_000) {
          lines.push(line);
          size += line.length + 1;
        }
        return false;
      });
    };
    const done = (text: string): boolean => {
      const check = acceptAnswer('sampling', q, { text });
      if (!check.ok) {
        write(`  ✗ ${sanitize(check.error, true)}\n`);
        startReply();
        return true;
      }
      const preview = formatText(text, 6, 600);
      keyStep(
        { s: () => void answer('accept', { text }), e: startReply, d: decline, '\r': decline, '\n': decline },
        '  press s, e or d (Enter declines) › ',
        `  your reply:\n    ${indent(preview, '    ')}\n  [s] send  [e] write again  [d/Enter] decline › `,
      );
      return true;
    };
    keyStep({ a: startReply, d: decline, '\r': decline, '\n': decline }, '  press a or d (Enter declines) › ', '  [a] write a reply  [d/Enter] decline › ');
  };

  const questionPrompt = (p: PendingApproval, behind: number) => {
    const q = p.question as Record<string, unknown>;
    const [blank, ...lines] = renderQuestion(p, q, behind, columns);
    write(blank ?? '');
    // The whole question before any answer, as for a tool call (paged).
    paged(
      lines,
      () => {
        if (p.kind === 'sampling') return samplingReply(q);
        if (isUrlElicitation(q)) {
          return keyStep({ a: () => void answer('accept'), d: decline, '\r': decline, '\n': decline }, '  press a or d (Enter declines) › ', '  [a] accept  [d/Enter] decline › ');
        }
        elicitationForm(q);
      },
      decline,
    );
  };

  const next = () => {
    if (current || detached) return;
    current = broker.pending()[0];
    if (!current) return;
    const behind = broker.pending().length - 1;
    edit = '';
    escape = 0;
    if (current.kind !== 'tool' && isObject(current.question)) questionPrompt(current, behind);
    else toolPromptStep(current, behind);
    setRaw(true);
  };

  /** Ctrl-C while a prompt is up: decline (deny) it, then pass the interrupt on. */
  const interrupt = () => {
    if (raw) write('\n');
    answer('deny');
    onInterrupt();
  };

  const pressKey = (s: Extract<Step, { mode: 'key' }>, key: string): boolean => {
    const action = Object.hasOwn(s.keys, key.toLowerCase()) ? s.keys[key.toLowerCase()] : undefined;
    if (!action) {
      write(s.hint);
      return false;
    }
    if (raw) write('\n');
    action();
    return true;
  };

  /** Raw mode: one character at a time. True when it answered the prompt on screen. */
  const feedChar = (ch: string): boolean => {
    if (!step) return false;
    if (ch === CTRL_C) {
      interrupt();
      return true;
    }
    const wasCR = afterCR;
    afterCR = ch === '\r';
    if (ch === '\n' && wasCR) return false; // CR LF is one Enter (even split across chunks)
    if (step.mode === 'key') return pressKey(step, ch);
    if (escape === 1) {
      escape = ch === '[' || ch === 'O' ? 2 : 0;
      return false;
    }
    if (escape === 2) {
      if (ch >= '@' && ch <= '~') escape = 0;
      return false;
    }
    if (ch === '\x1b') {
      escape = 1;
      return false;
    }
    if (ch === '\r' || ch === '\n') {
      const line = edit;
      edit = '';
      write('\n');
      return step.onLine(line);
    }
    if (ch === '\x7f' || ch === '\b') {
      if (edit) {
        edit = [...edit].slice(0, -1).join('');
        write('\b \b');
      }
      return false;
    }
    if (ch === CTRL_U) {
      write('\b \b'.repeat([...edit].length));
      edit = '';
      return false;
    }
    if (UNPRINTABLE.test(ch) || edit.length >= MAX_EDIT_CHARS) return false;
    edit += ch;
    write(ch);
    return false;
  };

  /** Line mode: one whole line. True when it answered the prompt on screen. */
  const feedLine = (line: string): boolean => {
    if (!step) return false;
    if (line.startsWith(CTRL_C)) {
      interrupt();
      return true;
    }
    if (step.mode === 'key') {
      const key = line.trim();
      return pressKey(step, key === '' ? '\n' : [...key][0]!);
    }
    return step.onLine(line);
  };

  const onData = (chunk: Buffer | string) => {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    // Keys typed while nothing is asked are dropped: a stray `a` must not approve a request
    // the person has not seen yet. For the same reason one chunk (a paste, key repeat)
    // answers at most one prompt: the rest of it is dropped.
    if (!current) {
      lineBuffer = '';
      return;
    }
    if (raw) {
      for (const ch of text) if (feedChar(ch)) return;
      return;
    }
    lineBuffer += text;
    let nl: number;
    while ((nl = lineBuffer.indexOf('\n')) >= 0) {
      const line = lineBuffer.slice(0, nl).replace(/\r$/, '');
      lineBuffer = lineBuffer.slice(nl + 1);
      if (feedLine(line)) {
        lineBuffer = '';
        return;
      }
    }
  };

  const unsubscribe = broker.onEvent((e) => {
    if (e.type === 'requested') return next();
    if (!current || e.request.id !== current.id) return;
    setRaw(false);
    write(answering ? `  → ${describe(e.outcome)}\n` : `\n  (no longer waiting: ${sanitize(e.outcome.reason, true)})\n`);
    current = undefined;
    step = undefined;
    edit = '';
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
    step = undefined;
    input.off('data', onData);
    input.pause();
    output.off('error', onOutputError);
    unsubscribe();
    detachApprover();
  };
}
