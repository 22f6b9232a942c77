import type { ApiProblem } from '../api/api-client';
import { ACTION_FIELDS, ACTION_TYPES, type ActionRow, type ActionType, emptyAction } from './scrape-form';

const FIELD_LABELS: Partial<Record<keyof ActionRow, string>> = {
  selector: 'Selector',
  text: 'Text',
  value: 'Value',
  key: 'Key',
  script: 'Script',
  time: 'Time (ms)',
  timeout: 'Time limit (ms)',
  json: 'JSON',
};

/** The browser actions in order: add, remove, move, and the fields of each action's type. */
export function ActionList({
  rows,
  problem,
  onChange,
}: {
  rows: ActionRow[];
  problem: ApiProblem | null;
  onChange: (rows: ActionRow[]) => void;
}) {
  const set = (index: number, patch: Partial<ActionRow>) => onChange(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  const move = (index: number, by: number) => {
    const next = [...rows];
    const [row] = next.splice(index, 1);
    next.splice(index + by, 0, row!);
    onChange(next);
  };
  return (
    <fieldset class="rows">
      <legend>Actions (browser mode)</legend>
      {rows.length === 0 && <p class="hint">No actions: the page is read as it loads.</p>}
      <ol class="actions">
        {rows.map((row, index) => {
          const problems = problem?.under('actions', index) ?? [];
          const id = `action-${index}`;
          return (
            <li class="action">
              <label class="stacked" for={`${id}-type`}>
                Action {index + 1}
                <select
                  id={`${id}-type`}
                  value={row.type}
                  onChange={(e) => set(index, { ...emptyAction(e.currentTarget.value as ActionType) })}
                >
                  {ACTION_TYPES.map((t) => (
                    <option value={t}>{t}</option>
                  ))}
                </select>
              </label>
              {ACTION_FIELDS[row.type].map((field) => {
                if (field === 'waitForNavigation' || field === 'optional') {
                  return (
                    <label class="check">
                      <input type="checkbox" checked={row[field]} onChange={(e) => set(index, { [field]: e.currentTarget.checked })} />
                      {field === 'optional' ? 'optional' : 'wait for navigation'}
                    </label>
                  );
                }
                const label =
                  row.type === 'collect' && field === 'json'
                    ? 'Extract (name → selector, JSON)'
                    : row.type === 'while' && field === 'json'
                      ? 'While action (JSON)'
                      : FIELD_LABELS[field];
                const multiline = field === 'script' || field === 'json';
                return (
                  <label class="stacked">
                    {label}
                    {multiline ? (
                      <textarea rows={3} value={String(row[field])} onInput={(e) => set(index, { [field]: e.currentTarget.value })} />
                    ) : (
                      <input
                        inputMode={field === 'time' || field === 'timeout' ? 'numeric' : undefined}
                        value={String(row[field])}
                        onInput={(e) => set(index, { [field]: e.currentTarget.value })}
                      />
                    )}
                  </label>
                );
              })}
              <span class="row-buttons">
                <button
                  type="button"
                  class="icon"
                  aria-label={`Move action ${index + 1} up`}
                  disabled={index === 0}
                  onClick={() => move(index, -1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  class="icon"
                  aria-label={`Move action ${index + 1} down`}
                  disabled={index === rows.length - 1}
                  onClick={() => move(index, 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="icon"
                  aria-label={`Remove action ${index + 1}`}
                  onClick={() => onChange(rows.filter((_, i) => i !== index))}
                >
                  ×
                </button>
              </span>
              {problems.map((p) => (
                <p class="field-error" role="alert">
                  {p.loc.slice(3).join('.') || `action ${index + 1}`}: {p.msg}
                </p>
              ))}
            </li>
          );
        })}
      </ol>
      <button type="button" onClick={() => onChange([...rows, emptyAction()])}>
        Add action
      </button>
    </fieldset>
  );
}
