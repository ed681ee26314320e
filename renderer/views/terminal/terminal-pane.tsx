// One terminal in an xterm. Output never enters React state: the host's scrollback is written
// on mount, then live `terminal:data` straight into xterm, each write acknowledged in xterm's
// write callback (flow control: the host pauses the pty until this window catches up).
import { useEffect, useRef } from 'react';
import { Terminal, type IDisposable } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';
import type { HostApi } from '../../../common/host-api';
import { copyText } from '../../components/clipboard';
import { leavesTerminal } from '../../components/shortcuts';
import { findLinks } from './links';
import type { TerminalFeed, TerminalSummary } from './terminal-feed';
import { monoFont, terminalTheme, watchTheme } from './terminal-theme';

export const SCROLLBACK_LINES = 10_000;
/** terminals:input takes at most this many characters per call (common/host-api.ts). */
const INPUT_CHUNK = 65_536;

export function exitLine(exit: NonNullable<TerminalSummary['exit']>): string {
  if (exit.code === null && exit.signal !== null) return `[process exited with signal ${exit.signal}]`;
  return `[process exited with code ${exit.code ?? 'unknown'}]`;
}

interface Props {
  api: HostApi;
  feed: TerminalFeed;
  terminal: TerminalSummary;
  /** The title shown in the tab (numbered when several share one). */
  title: string;
  visible: boolean;
}

export function TerminalPane({ api, feed, terminal, title, visible }: Props) {
  const hostRef = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  // The size the pty was last given, written here directly (no React state per resize).
  const sizeRef = useRef<HTMLSpanElement>(null);
  // What the xterm has been told about the process's end (written once, after the replay).
  const exitRef = useRef<{ known?: TerminalSummary['exit']; written: boolean; replayed: boolean }>({ written: false, replayed: false });
  const { id } = terminal;

  exitRef.current.known = terminal.exit;

  useEffect(() => {
    const el = hostRef.current;
    if (!el) return;
    const term = new Terminal({
      scrollback: SCROLLBACK_LINES,
      fontFamily: monoFont(),
      fontSize: 13,
      fontWeightBold: 600,
      lineHeight: 1.15,
      cursorBlink: true,
      theme: terminalTheme(),
      allowProposedApi: false,
      // OSC 8 hyperlinks (from programs that emit them) open like detected URLs.
      linkHandler: { activate: (_e, uri) => openLink(uri), allowNonHttpProtocols: false },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    termRef.current = term;
    fitRef.current = fit;
    const disposables: IDisposable[] = [];
    const state = exitRef.current;
    state.written = false;
    state.replayed = false;

    const writeExit = () => {
      const exit = state.known;
      if (!exit || state.written || !state.replayed) return;
      state.written = true;
      term.write(`\r\n\x1b[2m${exitLine(exit)}\x1b[22m\r\n\x1b[?25l`);
      term.options.disableStdin = true;
      term.options.cursorBlink = false;
    };

    // Live output that arrives before the replay's answer is already in the replay (one ordered
    // channel: the host computes the replay after sending it); drop it, but acknowledge it.
    let held: string[] | null = [];
    const write = (data: string) => term.write(data, () => feed.ack(id, data.length));
    const replay = () => {
      held = [];
      api.call('terminals:replay', { id }).then(
        ({ data }) => {
          const skipped = (held ?? []).reduce((n, d) => n + d.length, 0);
          held = null;
          feed.ack(id, skipped);
          if (data) term.write(data);
          state.replayed = true;
          writeExit();
        },
        () => {
          // Gone (closed meanwhile) or the host is unreachable: show what arrives from now on.
          const pending = held ?? [];
          held = null;
          for (const d of pending) write(d);
          state.replayed = true;
          writeExit();
        },
      );
    };
    const detach = feed.attach(
      id,
      (data) => {
        if (held) held.push(data);
        else write(data);
      },
      () => {
        // Reconnected: whatever was sent while away is lost; start over from the scrollback.
        term.reset();
        state.written = false;
        state.replayed = false;
        replay();
      },
    );
    replay();

    const send = (data: string) => {
      if (state.known) return;
      for (let i = 0; i < data.length; i += INPUT_CHUNK) api.call('terminals:input', { id, data: data.slice(i, i + INPUT_CHUNK) }).catch(() => {});
    };
    disposables.push(term.onData(send), term.onBinary(send));

    // Ctrl+Shift+C copies the selection (Ctrl+C stays the interrupt); Ctrl+Shift+V is left to the
    // browser, whose paste event xterm turns into (bracketed) input.
    // The app's way out (F6, Alt+A, Alt+T, Alt+1…9; components/shortcuts.ts): returning false
    // makes xterm leave the event alone, so it bubbles to the app's document listener instead of
    // reaching the shell as an escape sequence. Esc stays with the shell.
    term.attachCustomKeyEventHandler((e) => {
      if (leavesTerminal(e)) return false;
      if (e.type !== 'keydown' || !e.ctrlKey || !e.shiftKey || e.altKey || e.metaKey) return true;
      const key = e.key.toLowerCase();
      if (key === 'c') {
        e.preventDefault();
        if (term.hasSelection()) void copyText(term.getSelection()).catch(() => {});
        return false;
      }
      if (key === 'v') return false;
      return true;
    });

    disposables.push(
      term.registerLinkProvider({
        provideLinks(y, callback) {
          const line = term.buffer.active.getLine(y - 1)?.translateToString(true) ?? '';
          const links = findLinks(line).map((l) => ({
            // Columns are 1-based and inclusive. (A wide character before the URL shifts it; rare in URLs' lines.)
            range: { start: { x: l.start + 1, y }, end: { x: l.end, y } },
            text: l.url,
            activate: (_e: MouseEvent, text: string) => openLink(text),
          }));
          callback(links.length ? links : undefined);
        },
      }),
    );

    let lastSize = '';
    if (sizeRef.current) sizeRef.current.textContent = `${term.cols}×${term.rows}`;
    const sendSize = () => {
      if (state.known) return;
      const size = `${term.cols}x${term.rows}`;
      if (size === lastSize) return;
      lastSize = size;
      if (sizeRef.current) sizeRef.current.textContent = size.replace('x', '×');
      api.call('terminals:resize', { id, cols: term.cols, rows: term.rows }).catch(() => {});
    };
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    disposables.push(
      term.onResize(() => {
        clearTimeout(resizeTimer);
        resizeTimer = setTimeout(sendSize, 60);
      }),
    );
    const refit = () => {
      // A hidden tab has no size: fitting it would shrink the pty to nothing.
      if (el.offsetWidth > 0 && el.offsetHeight > 0) {
        try {
          fit.fit();
        } catch {
          /* not rendered yet */
        }
        sendSize();
      }
    };
    const ro = new ResizeObserver(() => refit());
    ro.observe(el);
    // Cell metrics depend on the web font; measure again once it is there.
    void document.fonts?.ready.then(() => {
      if (termRef.current !== term) return;
      term.options.fontFamily = monoFont();
      refit();
    });
    const stopTheme = watchTheme(() => {
      term.options.theme = terminalTheme();
    });

    return () => {
      ro.disconnect();
      stopTheme();
      clearTimeout(resizeTimer);
      detach();
      for (const d of disposables) d.dispose();
      term.dispose();
      if (termRef.current === term) termRef.current = null;
      fitRef.current = null;
    };
  }, [api, feed, id]);

  // The process ended while shown: say so, and keep the output readable.
  useEffect(() => {
    const term = termRef.current;
    const state = exitRef.current;
    if (!term || !terminal.exit || state.written || !state.replayed) return;
    state.written = true;
    term.write(`\r\n\x1b[2m${exitLine(terminal.exit)}\x1b[22m\r\n\x1b[?25l`);
    term.options.disableStdin = true;
    term.options.cursorBlink = false;
  }, [terminal.exit]);

  useEffect(() => {
    if (!visible) return;
    const term = termRef.current;
    requestAnimationFrame(() => {
      try {
        fitRef.current?.fit();
      } catch {
        /* not rendered yet */
      }
      term?.focus();
    });
  }, [visible]);

  return (
    <section className="term-pane" role="region" aria-label={`Terminal ${title}`} hidden={!visible} data-terminal-id={id}>
      <div className="term-host" ref={hostRef} />
      <div className="term-status">
        <span>
          <span className="mono">{terminal.command}</span> in <span className="mono">{terminal.cwd}</span>
        </span>
        <span className="spacer" />
        {terminal.pid !== undefined ? <span>pid {terminal.pid}</span> : null}
        {/* Filled by the effect (never by React), so a resize costs no render. */}
        <span ref={sizeRef} title="Columns × rows" />
        <span>Copy: select, Ctrl+Shift+C · Paste: Ctrl+Shift+V · Leave: F6</span>
      </div>
    </section>
  );
}

function openLink(url: string): void {
  if (!/^https?:\/\//i.test(url)) return;
  // The Electron shell denies new windows and opens the URL in the system browser instead.
  window.open(url, '_blank', 'noopener');
}
