import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { ApiProblem } from '../api/api-client';

/** A labelled control with the API's messages for it, announced and tied to the control. */
export function Field(props: { id: string; label: string; problems?: string[]; hint?: string; children: ComponentChildren }) {
  const problems = props.problems ?? [];
  return (
    <div class={`field${problems.length > 0 ? ' field-invalid' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      {problems.map((msg) => (
        <p class="field-error" id={`${props.id}-error`} role="alert">
          {msg}
        </p>
      ))}
    </div>
  );
}

/** A select with its label on one line (filters, orderings): options are [value, text]. */
export function InlineSelect(props: {
  id: string;
  label: string;
  value: string;
  options: Array<[string, string]>;
  onChange: (value: string) => void;
}) {
  return (
    <label class="check" for={props.id}>
      {props.label}
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.options.map(([value, text]) => (
          <option value={value}>{text}</option>
        ))}
      </select>
    </label>
  );
}

/** An API problem in words: status, stable code, message, and when to try again. */
export function ProblemNotice({ problem }: { problem: ApiProblem | null }) {
  if (!problem) return null;
  return (
    <div class="notice notice-error" role="alert">
      <strong>
        {problem.status > 0 ? `${problem.status} ` : ''}
        {problem.errorCode ?? 'error'}
      </strong>
      <span>{problem.message}</span>
      {problem.retryAfterSeconds !== null && <span>Retry after {problem.retryAfterSeconds} s.</span>}
    </div>
  );
}

export interface TabSpec {
  id: string;
  label: string;
  render: () => ComponentChildren;
}

/** WAI-ARIA tabs: arrow keys move between tabs, the panel is labelled by its tab. */
export function Tabs({ tabs, label, idPrefix }: { tabs: TabSpec[]; label: string; idPrefix: string }) {
  const [active, setActive] = useState(tabs[0]?.id ?? '');
  const buttons = useRef<Array<HTMLButtonElement | null>>([]);
  const current = tabs.find((t) => t.id === active) ?? tabs[0];
  if (!current) return null;
  const move = (event: KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = (index + step + tabs.length) % tabs.length;
    setActive(tabs[next]!.id);
    buttons.current[next]?.focus();
  };
  return (
    <div class="tabs">
      <div role="tablist" aria-label={label}>
        {tabs.map((tab, index) => (
          <button
            type="button"
            role="tab"
            id={`${idPrefix}-tab-${tab.id}`}
            aria-selected={tab.id === current.id}
            aria-controls={`${idPrefix}-panel`}
            tabIndex={tab.id === current.id ? 0 : -1}
            ref={(el) => {
              buttons.current[index] = el;
            }}
            onClick={() => setActive(tab.id)}
            onKeyDown={(e) => move(e, index)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${idPrefix}-panel`} aria-labelledby={`${idPrefix}-tab-${current.id}`} tabIndex={0}>
        {current.render()}
      </div>
    </div>
  );
}

/** A progress bar with its numbers in words (screen readers get both). */
export function Progress({ value, max, label }: { value: number; max: number; label: string }) {
  const percent = max > 0 ? Math.min(100, Math.round((value / max) * 100)) : 0;
  return (
    <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value}>
      <div class="progress-fill" style={{ width: `${percent}%` }} />
      <span class="progress-text">
        {value} / {max} ({percent} %)
      </span>
    </div>
  );
}

/** Copies text to the clipboard; where the browser refuses, the text is selected for Ctrl+C. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'select'>('idle');
  const fallback = useRef<HTMLTextAreaElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('select');
      requestAnimationFrame(() => fallback.current?.select());
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span aria-live="polite" class="copy-state">
        {state === 'copied' ? 'Copied.' : ''}
      </span>
      {state === 'select' && <textarea ref={fallback} readOnly aria-label={`${label}: press Ctrl+C`} value={text} rows={4} />}
    </span>
  );
}

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="code" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function formatTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date =
    typeof value === 'number'
      ? new Date(value < 1e12 ? value * 1000 : value)
      : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(date.getTime())
    ? String(value)
    : date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
}
