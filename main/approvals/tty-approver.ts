// A terminal approver for `gatehouse launch` / `gateway --http` run in a terminal.
//
// It must never use the process's stdin/stdout: for the stdio gateway those carry protocol
// bytes only. `openControllingTty()` opens the controlling terminal itself (/dev/tty) instead.
import fs from 'node:fs';
import tty from 'node:tty';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import type { ApprovalBroker, ApprovalChoice, ApprovalOutcome, PendingApproval } from './broker';
import { acceptAnswer, allowedValues, isUrlElicitation, validateElicitationContent } from './questions';

export interface TtyApproverOptions {
  input: Readable;
  output: Writable;
  /** Approver name and the `by` of its answers. Defaults to 'tty'. */
  name?: string;
  /** Pretty-printed arguments (and a sampling conversation) are cut to this many lines (default 24)… */
  maxArgLines?: number;
  /** …and this many characters in all (default 2000). */
  maxArgChars?: number;
  /**
   * After Ctrl-C has declined the prompt on screen (raw mode swallowed the terminal's SIGINT).
   * Default: raise SIGINT on this process, as the person meant to interrupt.
   */
  onInterrupt?: () => void;
}

const CTRL_C = '\x03';
const CTRL_U = '\x15';
const LINE_CHARS = 160;
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
  const maxLines = opts.maxArgLines ?? 24;
  const maxChars = opts.maxArgChars ?? 2000;
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

  const toolPrompt = (p: PendingApproval, behind: number) => {
    const allow = (choice: ApprovalChoice) => () => void answer(choice);
    const deny = allow('deny');
    keyStep(
      { a: allow('allow_once'), s: allow('allow_session'), t: allow('allow_tool_session'), d: deny, '\r': deny, '\n': deny },
      '  press a, s, t or d (Enter denies) › ',
      renderPrompt(p, behind, maxLines, maxChars),
    );
  };

  const decline = () => void answer('decline');
  const cancel = () => void answer('cancel');

  const elicitationForm = (q: Record<string, unknown>) => {
    const schema = isObj(q.requestedSchema) ? q.requestedSchema : {};
    const props = isObj(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
    const keys = Object.keys(props);
    let content: Record<string, unknown> = {};
    let i = 0;
    const askField = (): void => {
      if (i >= keys.length) return confirm();
      const key = keys[i]!;
      const prop = isObj(props[key]) ? props[key] : {};
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
    write(renderQuestion(p, q, behind, maxLines, maxChars));
    if (p.kind === 'sampling') return samplingReply(q);
    if (isUrlElicitation(q)) {
      return keyStep({ a: () => void answer('accept'), d: decline, '\r': decline, '\n': decline }, '  press a or d (Enter declines) › ', '  [a] accept  [d/Enter] decline › ');
    }
    elicitationForm(q);
  };

  const next = () => {
    if (current || detached) return;
    current = broker.pending()[0];
    if (!current) return;
    const behind = broker.pending().length - 1;
    edit = '';
    escape = 0;
    if (current.kind !== 'tool' && isObj(current.question)) questionPrompt(current, behind);
    else toolPrompt(current, behind);
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
  return formatText(text, maxLines, maxChars);
}

/** Text from an agent or a server, escaped and cut like arguments (lines, characters, line length). */
export function formatText(text: string, maxLines: number, maxChars: number): string {
  const all = sanitize(text, false).split('\n');
  const out: string[] = [];
  let used = 0;
  for (const line of all) {
    const c = cut(line);
    if (out.length >= maxLines || used + c.length > maxChars) break;
    out.push(c);
    used += c.length + 1;
  }
  if (out.length < all.length) out.push(`… (${all.length - out.length} more lines)`);
  return out.join('\n');
}

function cut(line: string): string {
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}

function renderQuestion(p: PendingApproval, q: Record<string, unknown>, waitingBehind: number, maxLines: number, maxChars: number): string {
  const sampling = p.kind === 'sampling';
  const lines = [
    '',
    `── Gatehouse: ${sampling ? 'a server asks for an LLM reply' : 'a server asks you a question'}${waitingBehind > 0 ? ` (${waitingBehind} more waiting)` : ''} ──`,
    `  server  ${sanitize(p.server, true)}${p.triggerTool ? ` (during ${sanitize(p.triggerTool, true)})` : ''}`,
    `  why     ${sanitize(p.reason, true)}`,
  ];
  if (sampling) {
    const convo: string[] = [];
    if (typeof q.systemPrompt === 'string' && q.systemPrompt) convo.push(`[system] ${q.systemPrompt}`);
    for (const m of Array.isArray(q.messages) ? q.messages : []) {
      if (!isObj(m)) continue;
      convo.push(`[${typeof m.role === 'string' ? m.role.replace(/\s+/g, ' ') : '?'}] ${contentText(m.content)}`);
    }
    lines.push(`  conversation\n    ${indent(formatText(convo.join('\n') || '(no messages)', maxLines, maxChars), '    ')}`);
    if (typeof q.maxTokens === 'number') lines.push(`  max tokens ${q.maxTokens}`);
  } else {
    const message = typeof q.message === 'string' ? q.message : '';
    lines.push(`  message ${indent(formatText(message, maxLines, maxChars), '          ')}`);
    if (isUrlElicitation(q)) lines.push(`  open    ${indent(formatText(q.url, 4, 1000), '          ')}`, '  (open it yourself: the answer only tells the server whether you agree)');
    else {
      const schema = isObj(q.requestedSchema) ? q.requestedSchema : {};
      const props = isObj(schema.properties) ? Object.keys(schema.properties) : [];
      lines.push(`  fields  ${props.length ? cut(sanitize(props.join(', '), true)) : '(none)'}`);
    }
  }
  lines.push(`  declined automatically after ${Math.round((p.expiresAt - p.createdAt) / 1000)}s`, '');
  return lines.join('\n');
}

/** One field of an elicitation form: its title, description, what it takes, its default. */
function renderField(key: string, p: Record<string, unknown>, required: boolean, n: number, of: number): string {
  const title = typeof p.title === 'string' && p.title !== key ? `${sanitize(p.title, true)} (${sanitize(key, true)})` : sanitize(key, true);
  const lines = [`  [${n}/${of}] ${cut(title)}${required ? ', required' : ''}`];
  if (typeof p.description === 'string' && p.description) lines.push(`        ${cut(sanitize(p.description, true))}`);
  const type = fieldType(p);
  const options = fieldOptions(type === 'array' && isObj(p.items) ? p.items : p);
  if (options) {
    const list = options.map((o, i) => `${i + 1}) ${o.title !== undefined ? `${o.title} [${o.shown}]` : o.shown}`).join('  ');
    lines.push(`        ${type === 'array' ? 'any of (comma-separated)' : 'one of'}: ${cut(sanitize(list, true))}`);
  } else if (type === 'boolean') lines.push('        yes or no');
  else if (type === 'number' || type === 'integer') {
    const range = [typeof p.minimum === 'number' ? `at least ${p.minimum}` : '', typeof p.maximum === 'number' ? `at most ${p.maximum}` : ''].filter(Boolean).join(', ');
    lines.push(`        ${type === 'integer' ? 'a whole number' : 'a number'}${range ? `, ${range}` : ''}`);
  } else if (type === 'array') lines.push('        a comma-separated list');
  else if (typeof p.format === 'string') lines.push(`        ${sanitize(p.format, true)}`);
  if (p.default !== undefined) lines.push(`        default ${cut(sanitize(safeJson(p.default), true))} (Enter keeps it)`);
  else if (!required) lines.push('        optional (Enter leaves it out)');
  return `${lines.join('\n')}\n`;
}

function fieldType(p: Record<string, unknown>): string | undefined {
  if (typeof p.type === 'string') return p.type;
  const allowed = allowedValues(p);
  return allowed ? typeof allowed[0] : undefined;
}

interface FieldOption {
  value: unknown;
  shown: string;
  title?: string;
}

/** The values a field (or an array field's items) admits, with their titles. */
function fieldOptions(p: Record<string, unknown>): FieldOption[] | undefined {
  const values = allowedValues(p);
  if (!values) return undefined;
  const alts = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  const names = Array.isArray(p.enumNames) ? p.enumNames : undefined;
  return values.map((value, i) => {
    const alt = Array.isArray(p.enum) ? undefined : alts?.[i];
    const t = isObj(alt) && typeof alt.title === 'string' ? alt.title : typeof names?.[i] === 'string' ? (names[i] as string) : undefined;
    const shown = typeof value === 'string' ? value : safeJson(value);
    return t !== undefined && t !== shown ? { value, shown, title: t } : { value, shown };
  });
}

/** The option a person means by `text`: its value, its title, or its number in the list. */
function pickOption(options: FieldOption[], text: string): unknown {
  const byValue = options.find((o) => o.shown === text);
  if (byValue) return byValue.value;
  const byTitle = options.filter((o) => (o.title ?? o.shown).toLowerCase() === text.toLowerCase());
  if (byTitle.length === 1) return byTitle[0]!.value;
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n >= 1 && n <= options.length) return options[n - 1]!.value;
  }
  return undefined;
}

/**
 * A typed line as the field's value, checked with the broker's own validator
 * (validateElicitationContent): an empty line takes the default, leaves an optional field out,
 * or is refused for a required one.
 */
export function readField(key: string, p: Record<string, unknown>, required: boolean, line: string): { value: unknown } | { error: string } {
  const text = line.trim();
  let value: unknown;
  if (text === '') {
    if (p.default !== undefined) value = p.default;
    else if (required) return { error: `'${key}' is required` };
    else return { value: undefined };
  } else value = parseField(p, text);
  const error = validateElicitationContent({ type: 'object', properties: { [key]: p } }, { [key]: value });
  return error ? { error } : { value };
}

function parseField(p: Record<string, unknown>, text: string): unknown {
  const type = fieldType(p);
  if (type === 'array') {
    const options = isObj(p.items) ? fieldOptions(p.items) : undefined;
    return text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => (options ? (pickOption(options, s) ?? s) : s));
  }
  const options = fieldOptions(p);
  if (options) {
    const picked = pickOption(options, text);
    if (picked !== undefined) return picked;
  }
  switch (type) {
    case 'number':
    case 'integer':
      return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : text;
    case 'boolean': {
      const t = text.toLowerCase();
      if (['y', 'yes', 'true', '1'].includes(t)) return true;
      if (['n', 'no', 'false', '0'].includes(t)) return false;
      return text;
    }
    default:
      return text;
  }
}

/** One sampling message's content as text: text as is, anything else as a short placeholder. */
function contentText(c: unknown): string {
  if (Array.isArray(c)) return c.map(contentText).join('\n');
  if (typeof c === 'string') return c;
  if (!isObj(c)) return '';
  if (c.type === 'text' && typeof c.text === 'string') return c.text;
  return `[${typeof c.type === 'string' ? c.type : 'content'}${typeof c.mimeType === 'string' ? ` ${c.mimeType}` : ''}]`;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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
