import { useEffect, useRef, useState } from 'react';
import { Check, Copy } from 'lucide-react';
import { Button } from './button';
import { copyText } from './clipboard';

/**
 * Copies text (or the result of `get`, evaluated only on click so a secret is fetched only
 * when asked for). Shows "Copied" for a moment.
 */
export function CopyButton({ text, get, label = 'Copy', size = 'sm', onError }: { text?: string; get?: () => Promise<string>; label?: string; size?: 'sm' | 'md'; onError?: (e: unknown) => void }) {
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => { if (timer.current) clearTimeout(timer.current); }, []);

  const onClick = async (): Promise<void> => {
    try {
      setBusy(true);
      const value = get ? await get() : (text ?? '');
      await copyText(value);
      setCopied(true);
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(false), 1500);
    } catch (e) {
      onError?.(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Button size={size} variant="secondary" icon={copied ? <Check size={14} /> : <Copy size={14} />} onClick={() => void onClick()} busy={busy} aria-live="polite">
      {copied ? 'Copied' : label}
    </Button>
  );
}
