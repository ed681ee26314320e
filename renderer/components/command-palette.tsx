// The command palette (Ctrl+K / ⌘K): every view and action by name, keyboard only. A combobox
// over a listbox (WAI-ARIA APG "combobox with listbox popup"): type to filter, ↑/↓ to move,
// Enter to run, Esc to close; focus goes back where it was, unless the command moves it.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Search } from 'lucide-react';
import { Kbd } from './kbd';
import { rankCommands, type PaletteCommand } from './palette-search';

export function CommandPalette({ commands, onClose }: { commands: readonly PaletteCommand[]; onClose: () => void }) {
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  const matches = useMemo(() => rankCommands(commands, query), [commands, query]);
  const current = Math.min(active, Math.max(0, matches.length - 1));

  useEffect(() => {
    returnTo.current = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    input.current?.focus();
  }, []);

  useEffect(() => {
    list.current?.querySelector<HTMLElement>('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [current, matches]);

  const close = (): void => {
    returnTo.current?.focus();
    onClose();
  };
  const run = (c: PaletteCommand | undefined): void => {
    if (!c) return;
    close();
    // After the palette is gone, so a command that moves focus (open a view, focus the tray) wins.
    requestAnimationFrame(() => c.run());
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    const n = matches.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (n) setActive((current + (e.key === 'ArrowDown' ? 1 : -1) + n) % n);
    } else if (e.key === 'Home' && e.ctrlKey) {
      setActive(0);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      run(matches[current]);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === 'Tab') {
      // The dialog is modal and has one control: keep focus in it.
      e.preventDefault();
    }
  };

  const optionId = (c: PaletteCommand) => `palette-${c.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <div className="modal-backdrop palette-backdrop" onClick={close}>
      <div className="modal palette" role="dialog" aria-modal="true" aria-label="Command palette" onClick={(e) => e.stopPropagation()}>
        <div className="palette-input-row">
          <Search size={15} aria-hidden="true" />
          <input
            ref={input}
            className="palette-input"
            role="combobox"
            aria-label="Command"
            aria-expanded="true"
            aria-controls="palette-list"
            aria-autocomplete="list"
            aria-activedescendant={matches[current] ? optionId(matches[current]) : undefined}
            placeholder="Type a view or an action…"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setActive(0);
            }}
            onKeyDown={onKeyDown}
            spellCheck={false}
            autoComplete="off"
          />
        </div>
        <ul className="palette-list" id="palette-list" role="listbox" aria-label="Commands" ref={list}>
          {matches.map((c, i) => (
            <li
              key={c.id}
              id={optionId(c)}
              role="option"
              aria-selected={i === current}
              className={`palette-item${i === current ? ' is-active' : ''}`}
              onClick={() => run(c)}
              onMouseMove={() => setActive(i)}
            >
              <span className="palette-group">{c.group}</span>
              <span className="palette-title">{c.title}</span>
              {c.keys ? <Kbd hidden>{c.keys}</Kbd> : null}
            </li>
          ))}
        </ul>
        {matches.length === 0 ? <p className="palette-empty" role="status">No command matches “{query}”.</p> : null}
      </div>
    </div>
  );
}
