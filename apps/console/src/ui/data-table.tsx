import type { ComponentChildren, HTMLAttributes } from 'preact';
import { useState } from 'preact/hooks';

export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** The cell that names the row (a th scope=row for screen readers). */
  rowHeader?: boolean;
  className?: string;
}

/**
 * A table with a caption and column headers, in a scroll box that keyboard users can focus (a
 * wide table scrolls inside it instead of widening the page on a phone).
 */
export function DataTable<T>(props: {
  caption: string;
  captionHidden?: boolean;
  columns: Array<Column<T>>;
  rows: T[];
  empty?: string;
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement> & { [data: `data-${string}`]: string };
}) {
  const headed = props.columns.some((c) => c.label !== '');
  return (
    <div class="table-wrap" tabIndex={0}>
      <table>
        <caption class={props.captionHidden ? 'visually-hidden' : undefined}>{props.caption}</caption>
        {headed && (
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th scope="col">{c.label}</th>
              ))}
            </tr>
          </thead>
        )}
        <tbody>
          {props.rows.map((row) => (
            <tr {...props.rowProps?.(row)}>
              {props.columns.map((c) =>
                c.rowHeader ? (
                  <th scope="row" class={c.className}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td class={c.className}>{c.cell(row)}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {props.rows.length === 0 && props.empty && <p class="hint">{props.empty}</p>}
    </div>
  );
}

/** Cursor paging: the cursors of the pages before this one are kept, so Previous goes back. */
export function useCursorPages() {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length,
    next: (cursor: string | null | undefined) => setCursors([...cursors, cursor ?? undefined]),
    previous: () => setCursors(cursors.slice(0, -1)),
    restart: () => setCursors([undefined]),
  };
}

export function Pager(props: {
  label: string;
  pages: ReturnType<typeof useCursorPages>;
  hasMore: boolean;
  nextCursor: string | null | undefined;
}) {
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" disabled={props.pages.page === 1} onClick={props.pages.previous}>
        Previous
      </button>
      <span>Page {props.pages.page}</span>
      <button type="button" disabled={!props.hasMore} onClick={() => props.pages.next(props.nextCursor)}>
        Next
      </button>
    </nav>
  );
}
