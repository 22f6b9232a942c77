import type { PairRow } from './scrape-form';

/** An editable name → value list (extract, headers, cookies); each row's inputs are labelled. */
export function PairRows(props: {
  id: string;
  legend: string;
  nameLabel: string;
  valueLabel: string;
  rows: PairRow[];
  problems: (name: string) => string[];
  onChange: (rows: PairRow[]) => void;
}) {
  const set = (index: number, patch: Partial<PairRow>) => props.onChange(props.rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  return (
    <fieldset class="rows">
      <legend>{props.legend}</legend>
      {props.rows.map((row, index) => {
        const problems = props.problems(row.name.trim());
        return (
          <div class="row">
            <label>
              <span class="visually-hidden">
                {props.nameLabel} {index + 1}
              </span>
              <input
                id={`${props.id}-${index}-name`}
                placeholder={props.nameLabel}
                value={row.name}
                onInput={(e) => set(index, { name: e.currentTarget.value })}
              />
            </label>
            <label>
              <span class="visually-hidden">
                {props.valueLabel} {index + 1}
              </span>
              <input
                id={`${props.id}-${index}-value`}
                placeholder={props.valueLabel}
                value={row.value}
                aria-invalid={problems.length > 0}
                onInput={(e) => set(index, { value: e.currentTarget.value })}
              />
            </label>
            <button
              type="button"
              class="icon"
              aria-label={`Remove ${props.nameLabel.toLowerCase()} ${index + 1}`}
              onClick={() => props.onChange(props.rows.filter((_, i) => i !== index))}
            >
              ×
            </button>
            {problems.map((msg) => (
              <p class="field-error" role="alert">
                {row.name}: {msg}
              </p>
            ))}
          </div>
        );
      })}
      <button type="button" onClick={() => props.onChange([...props.rows, { name: '', value: '' }])}>
        Add {props.nameLabel.toLowerCase()}
      </button>
    </fieldset>
  );
}
