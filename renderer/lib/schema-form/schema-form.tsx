// A form generated from a tool's JSON input schema (model.ts does the thinking). Every input
// has a visible label, required markers, the schema's description as help text and its
// validation message underneath, wired with aria-describedby / aria-invalid.
import { useId, type ReactNode } from 'react';
import { Plus, Trash2 } from 'lucide-react';
import { initialValue, optionLabel, setIn, type ArrayField, type Field, type FormValue } from './model';

export interface SchemaFormProps {
  field: Field;
  value: FormValue;
  onChange: (next: FormValue) => void;
  /** Messages by path (`a.b[0]`), shown only once the user tried to submit or touched a field. */
  errors: Map<string, string>;
}

export function SchemaForm({ field, value, onChange, errors }: SchemaFormProps) {
  if (field.kind === 'object' && field.key === '') {
    if (field.fields.length === 0) return <p className="muted">This tool takes no arguments.</p>;
    return <div className="sf-root">{field.fields.map((f) => <FieldInput key={f.key} field={f} path={[f.key]} root={value} onRootChange={onChange} errors={errors} />)}</div>;
  }
  return <FieldInput field={field} path={[]} root={value} onRootChange={onChange} errors={errors} />;
}

function getIn(value: FormValue, path: Array<string | number>): FormValue {
  let v: FormValue | undefined = value;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return null;
    v = (v as Record<string | number, FormValue>)[p as never];
  }
  return v ?? null;
}

function pathText(path: Array<string | number>): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

interface InputProps {
  field: Field;
  path: Array<string | number>;
  root: FormValue;
  onRootChange: (next: FormValue) => void;
  errors: Map<string, string>;
  /** Array items carry their own remove button and no label row. */
  inline?: ReactNode;
}

function FieldInput({ field, path, root, onRootChange, errors, inline }: InputProps) {
  const id = useId();
  const value = getIn(root, path);
  const set = (next: FormValue): void => onRootChange(setIn(root, path, next));
  const error = errors.get(pathText(path));
  const helpId = field.description ? `${id}-help` : undefined;
  const errId = error ? `${id}-err` : undefined;
  const describedBy = [helpId, errId].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined, 'aria-required': field.required || undefined };
  const labelText = field.label || (typeof path.at(-1) === 'number' ? `Item ${Number(path.at(-1)) + 1}` : 'Value');

  if (field.kind === 'object') {
    return (
      <fieldset className="sf-group">
        <legend className="sf-legend">
          {labelText}
          {field.required ? <RequiredMark /> : <span className="sf-optional">optional</span>}
          {inline}
        </legend>
        {field.description ? <p className="sf-help" id={helpId}>{field.description}</p> : null}
        {field.fields.map((f) => <FieldInput key={f.key} field={f} path={[...path, f.key]} root={root} onRootChange={onRootChange} errors={errors} />)}
        {error ? <p className="sf-error" id={errId}>{error}</p> : null}
      </fieldset>
    );
  }

  if (field.kind === 'array') return <ArrayInput field={field} path={path} root={root} onRootChange={onRootChange} errors={errors} label={labelText} helpId={helpId} error={error} errId={errId} />;

  let control: ReactNode;
  switch (field.kind) {
    case 'string':
      control = field.multiline ? (
        <textarea {...common} className="input mono sf-textarea" value={String(value ?? '')} onChange={(e) => set(e.target.value)} rows={5} spellCheck={false} />
      ) : (
        <input {...common} className="input" type="text" value={String(value ?? '')} onChange={(e) => set(e.target.value)} placeholder={field.format ?? (field.pattern ? `pattern ${field.pattern}` : undefined)} spellCheck={false} />
      );
      break;
    case 'number':
    case 'integer': {
      // A schema made from zod's .int() bounds at ±(2^53 − 1): no limit a person needs to read ("≤ 9007199254740991").
      const real = (n: number | undefined): number | undefined => (n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined);
      const [min, xmin, max, xmax] = [real(field.minimum), real(field.exclusiveMinimum), real(field.maximum), real(field.exclusiveMaximum)];
      const bounds = [min !== undefined ? `≥ ${min}` : xmin !== undefined ? `> ${xmin}` : '', max !== undefined ? `≤ ${max}` : xmax !== undefined ? `< ${xmax}` : ''].filter(Boolean).join(', ');
      control = (
        <input
          {...common}
          className="input mono sf-number"
          type="text"
          inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'}
          value={String(value ?? '')}
          onChange={(e) => set(e.target.value)}
          placeholder={[field.kind, bounds].filter(Boolean).join(' ')}
        />
      );
      break;
    }
    case 'boolean':
      if (field.required || field.default !== undefined) {
        return (
          <div className="sf-field sf-check">
            <label className="check" htmlFor={id}>
              <input {...common} type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} />
              <span>{labelText}</span>
              {field.required ? <RequiredMark /> : null}
              {inline}
            </label>
            {field.description ? <p className="sf-help" id={helpId}>{field.description}</p> : null}
            {error ? <p className="sf-error" id={errId}>{error}</p> : null}
          </div>
        );
      }
      control = (
        <select {...common} className="input sf-select" value={value === null ? '' : String(value)} onChange={(e) => set(e.target.value === '' ? null : e.target.value === 'true')}>
          <option value="">— unset —</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      );
      break;
    case 'enum':
      control = (
        <select {...common} className="input sf-select" value={String(typeof value === 'number' ? value : -1)} onChange={(e) => set(Number(e.target.value))}>
          {field.required && field.options.length === 1 ? null : <option value="-1">{field.required ? '— choose —' : '— unset —'}</option>}
          {field.options.map((o, i) => (
            <option key={i} value={i}>{optionLabel(o)}</option>
          ))}
        </select>
      );
      break;
    case 'json':
      control = <textarea {...common} className="input mono sf-textarea" rows={3} value={String(value ?? '')} onChange={(e) => set(e.target.value)} placeholder="JSON" spellCheck={false} />;
      break;
  }

  return (
    <div className="sf-field">
      <div className="sf-label-row">
        <label htmlFor={id} className="sf-label">
          {labelText}
          {field.required ? <RequiredMark /> : null}
        </label>
        <span className="sf-type">{field.kind === 'json' ? 'JSON' : field.kind}</span>
        {inline}
      </div>
      {control}
      {field.description ? <p className="sf-help" id={helpId}>{field.description}</p> : null}
      {error ? <p className="sf-error" id={errId}>{error}</p> : null}
    </div>
  );
}

function ArrayInput({ field, path, root, onRootChange, errors, label, helpId, error, errId }: Omit<InputProps, 'field'> & { field: ArrayField; label: string; helpId?: string; error?: string; errId?: string }) {
  const items = (getIn(root, path) as FormValue[] | null) ?? [];
  const list = Array.isArray(items) ? items : [];
  const set = (next: FormValue[]): void => onRootChange(setIn(root, path, next));
  const add = (): void => set([...list, initialValue(field.item)]);
  return (
    <fieldset className="sf-group sf-array">
      <legend className="sf-legend">
        {label}
        {field.required ? <RequiredMark /> : <span className="sf-optional">optional</span>}
        <span className="sf-type">{field.item.kind === 'object' ? 'objects' : `${field.item.kind}s`}</span>
      </legend>
      {field.description ? <p className="sf-help" id={helpId}>{field.description}</p> : null}
      {list.map((_, i) => (
        <FieldInput
          key={i}
          field={{ ...field.item, label: `${label} ${i + 1}`, required: true }}
          path={[...path, i]}
          root={root}
          onRootChange={onRootChange}
          errors={errors}
          inline={
            <button type="button" className="btn btn-ghost btn-icon-only sf-remove" aria-label={`Remove ${label} ${i + 1}`} title="Remove" onClick={() => set(list.filter((__, j) => j !== i))}>
              <Trash2 size={13} aria-hidden="true" />
            </button>
          }
        />
      ))}
      <button type="button" className="btn btn-ghost btn-sm sf-add" onClick={add}>
        <Plus size={13} aria-hidden="true" /> <span>Add {field.item.kind === 'object' ? 'item' : field.item.kind}</span>
      </button>
      {error ? <p className="sf-error" id={errId}>{error}</p> : null}
    </fieldset>
  );
}

function RequiredMark() {
  return (
    <span className="sf-required" title="required">
      <span aria-hidden="true">*</span>
      <span className="visually-hidden"> (required)</span>
    </span>
  );
}
