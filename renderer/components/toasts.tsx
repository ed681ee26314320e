// Transient messages ("Copied", "Launch failed: …"). Errors stay until dismissed; the rest fade
// after a few seconds. The region is a polite live region so screen readers hear them.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { X } from 'lucide-react';

export type ToastTone = 'info' | 'ok' | 'warn' | 'danger';

export interface Toast {
  id: number;
  tone: ToastTone;
  title: string;
  detail?: string;
}

interface ToastApi {
  show(t: Omit<Toast, 'id'>): void;
  error(title: string, e?: unknown): void;
}

const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast() outside <ToastProvider>');
  return api;
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());

  const dismiss = useCallback((id: number) => {
    setToasts((ts) => ts.filter((t) => t.id !== id));
    const timer = timers.current.get(id);
    if (timer) clearTimeout(timer);
    timers.current.delete(id);
  }, []);

  const show = useCallback(
    (t: Omit<Toast, 'id'>) => {
      const id = next.current++;
      setToasts((ts) => [...ts.slice(-4), { ...t, id }]);
      if (t.tone !== 'danger') timers.current.set(id, setTimeout(() => dismiss(id), 4000));
    },
    [dismiss],
  );

  const api = useMemo<ToastApi>(() => ({ show, error: (title, e) => show({ tone: 'danger', title, detail: e === undefined ? undefined : errorText(e) }) }), [show]);

  useEffect(() => {
    const map = timers.current;
    return () => map.forEach((t) => clearTimeout(t));
  }, []);

  return (
    <ToastContext.Provider value={api}>
      {children}
      <section className="toasts" aria-label="Notifications" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.tone}`} role={t.tone === 'danger' ? 'alert' : 'status'}>
            <div className="toast-text">
              <div className="toast-title">{t.title}</div>
              {t.detail ? <div className="toast-detail">{t.detail}</div> : null}
            </div>
            <button type="button" className="toast-close" aria-label="Dismiss notification" onClick={() => dismiss(t.id)}>
              <X size={14} aria-hidden="true" />
            </button>
          </div>
        ))}
      </section>
    </ToastContext.Provider>
  );
}
