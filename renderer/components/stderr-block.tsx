// Stderr lines wherever they are shown outside Logs (the crash banner, a server's recent stderr,
// its exit history): colours rendered as Logs renders them, never raw escape codes.
import { AnsiLine } from './ansi-line';

export function StderrBlock({ lines, label }: { lines: readonly string[]; label?: string }) {
  return (
    <pre className="code-block stderr-tail" aria-label={label}>
      {lines.map((line, i) => (
        <div key={i} className="stderr-line">
          <AnsiLine text={line} ranges={[]} />
          {line === '' ? '\u00a0' : null}
        </div>
      ))}
    </pre>
  );
}
