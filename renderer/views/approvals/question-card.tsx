// The answer area of a sampling or elicitation request (docs/gateway.md "Questions from servers"): a server asked
// something the agent's client cannot answer, so a person does. Elicitation: the server's
// message and its requested schema as a form (Accept / Decline / Cancel); URL mode: the URL
// to open and Accept / Decline. Sampling: the conversation, a reply box (Send reply /
// Decline). Ctrl+Enter (⌘+Enter) sends from anywhere in the card.
import { useMemo, useState, type KeyboardEvent } from 'react';
import { Ban, Check, ExternalLink, Send, X } from 'lucide-react';
import { Button } from '../../components/button';
import { SchemaForm } from '../../lib/schema-form/schema-form';
import { errorsByPath, fieldsFromSchema, initialValue, type FormValue } from '../../lib/schema-form/model';
import type { ApprovalChoice } from '../../state/types';
import { elicitationContent, isSendKey, replyProblem, type QuestionView } from './question';
import { Visible } from './argument-list';

export interface QuestionAnswerProps {
  view: QuestionView;
  /** Id prefix for labels. */
  idBase: string;
  disabled: boolean;
  compact?: boolean;
  onAnswer: (choice: ApprovalChoice, content?: Record<string, unknown>) => void;
}

export function QuestionAnswer(props: QuestionAnswerProps) {
  switch (props.view.type) {
    case 'elicitation-form':
      return <ElicitationForm {...props} view={props.view} />;
    case 'elicitation-url':
      return <ElicitationUrl {...props} view={props.view} />;
    case 'sampling':
      return <SamplingReply {...props} view={props.view} />;
  }
}

function ElicitationForm({ view, disabled, onAnswer, idBase, compact }: QuestionAnswerProps & { view: Extract<QuestionView, { type: 'elicitation-form' }> }) {
  const root = useMemo(() => fieldsFromSchema(view.schema), [view.schema]);
  const [value, setValue] = useState<FormValue>(() => initialValue(root));
  const [tried, setTried] = useState(false);
  const { content, errors } = useMemo(() => elicitationContent(root, value), [root, value]);
  const errorMap = useMemo(() => (tried ? errorsByPath(errors) : new Map<string, string>()), [tried, errors]);
  const accept = () => {
    setTried(true);
    if (errors.length === 0) onAnswer('accept', content);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (isSendKey(e)) {
      e.preventDefault();
      accept();
    }
  };
  return (
    <form
      className="question-answer"
      aria-labelledby={`${idBase}-message`}
      onSubmit={(e) => {
        e.preventDefault();
        accept();
      }}
      onKeyDown={onKeyDown}
      style={{ display: 'flex', flexDirection: 'column', gap: 'var(--sp-4)' }}
    >
      <p className="question-message" id={`${idBase}-message`} style={{ fontWeight: 550, whiteSpace: 'pre-wrap' }}>
        <Visible text={view.message} />
      </p>
      {/* In the tray a long form scrolls inside the card, never the window. */}
      <div style={compact ? { maxHeight: 360, overflow: 'auto', paddingRight: 'var(--sp-2)' } : undefined}>
        <SchemaForm field={root} value={value} onChange={setValue} errors={errorMap} />
      </div>
      {tried && errors.length > 0 ? (
        <p className="sf-error" role="alert">
          {errors.length === 1 ? '1 field needs attention' : `${errors.length} fields need attention`}
        </p>
      ) : null}
      <footer className="approval-actions" aria-label="Answer">
        <Button type="submit" variant="success" icon={<Check size={14} />} disabled={disabled} title="Send these values to the server (Ctrl+Enter)">
          Accept
        </Button>
        <Button variant="danger" icon={<X size={14} />} onClick={() => onAnswer('decline')} disabled={disabled} title="Tell the server you will not provide this">
          Decline
        </Button>
        <Button variant="secondary" icon={<Ban size={14} />} onClick={() => onAnswer('cancel')} disabled={disabled} title="Dismiss without an answer">
          Cancel
        </Button>
      </footer>
    </form>
  );
}

function ElicitationUrl({ view, disabled, onAnswer, idBase }: QuestionAnswerProps & { view: Extract<QuestionView, { type: 'elicitation-url' }> }) {
  return (
    <div className="question-answer" style={{ display: 'flex', flexDirection: 'column', gap: 'var(--sp-4)' }}>
      <p className="question-message" id={`${idBase}-message`} style={{ fontWeight: 550, whiteSpace: 'pre-wrap' }}>
        <Visible text={view.message} />
      </p>
      <div>
        <div className="section-label">The server asks you to open</div>
        {view.openable ? (
          <a href={view.url} target="_blank" rel="noopener noreferrer" className="mono" style={{ wordBreak: 'break-all' }} aria-label={`Open ${view.url} in the browser`}>
            <ExternalLink size={13} aria-hidden="true" /> <Visible text={view.url} />
          </a>
        ) : (
          <code className="mono" style={{ wordBreak: 'break-all' }} title="Not an http(s) URL: not opened from here">
            <Visible text={view.url} />
          </code>
        )}
      </div>
      <footer className="approval-actions" aria-label="Answer">
        <Button variant="success" icon={<Check size={14} />} onClick={() => onAnswer('accept')} disabled={disabled} title="Tell the server you agree to go through this flow">
          Accept
        </Button>
        <Button variant="danger" icon={<X size={14} />} onClick={() => onAnswer('decline')} disabled={disabled}>
          Decline
        </Button>
      </footer>
    </div>
  );
}

function SamplingReply({ view, disabled, onAnswer, idBase, compact }: QuestionAnswerProps & { view: Extract<QuestionView, { type: 'sampling' }> }) {
  const [text, setText] = useState('');
  const problem = replyProblem(text);
  const send = () => {
    if (!problem) onAnswer('accept', { text });
  };
  return (
    <div className="question-answer" style={{ display: 'flex', flexDirection: 'column', gap: 'var(--sp-4)' }}>
      <section aria-label="Conversation" style={{ display: 'flex', flexDirection: 'column', gap: 'var(--sp-3)', maxHeight: compact ? 240 : 420, overflow: 'auto' }}>
        {view.systemPrompt ? (
          <div className="question-msg">
            <div className="section-label">System prompt</div>
            <p style={{ whiteSpace: 'pre-wrap' }}><Visible text={view.systemPrompt} /></p>
          </div>
        ) : null}
        {view.messages.map((m, i) => (
          <div key={i} className={`question-msg role-${m.role}`}>
            <div className="section-label">{m.role}</div>
            <p style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}><Visible text={m.text} /></p>
          </div>
        ))}
      </section>
      <p className="muted" style={{ fontSize: 'var(--fs-sm)' }}>
        {view.maxTokens !== undefined ? `max ${view.maxTokens} tokens` : null}
        {view.temperature !== undefined ? ` · temperature ${view.temperature}` : null}
        {view.modelHints.length ? ` · model hints: ${view.modelHints.join(', ')}` : null}
      </p>
      <label htmlFor={`${idBase}-reply`} className="sf-label">
        Your reply (sent as the assistant)
      </label>
      <textarea
        id={`${idBase}-reply`}
        className="input sf-textarea"
        rows={compact ? 3 : 5}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (isSendKey(e)) {
            e.preventDefault();
            send();
          }
        }}
        placeholder="Write the reply the server gets instead of a model's (Ctrl+Enter sends)"
      />
      <footer className="approval-actions" aria-label="Answer">
        <Button variant="success" icon={<Send size={14} />} onClick={send} disabled={disabled || problem !== undefined} aria-label="Send reply" title={problem ?? 'Send this reply to the server (Ctrl+Enter)'}>
          Send
        </Button>
        <Button variant="danger" icon={<X size={14} />} onClick={() => onAnswer('decline')} disabled={disabled} title="The server is told the user rejected the request">
          Decline
        </Button>
      </footer>
    </div>
  );
}
