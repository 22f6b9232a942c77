/** One row of a side-by-side diff: the line before (left) and after (right), or a hunk's heading. */
export type DiffRow =
  | { kind: 'hunk'; text: string }
  | {
      kind: 'same' | 'changed' | 'removed' | 'added';
      left: string | null;
      right: string | null;
      leftNo: number | null;
      rightNo: number | null;
    };

/**
 * A unified diff (the monitor's `change.diff`) as rows of two columns: unchanged lines on both
 * sides, a run of removed lines beside the run of added lines that replaced it (paired in order,
 * the longer run's rest alone on its side). File headers are left out; a line the diff does not
 * know how to read (a "\ No newline" note, a cut notice) stays on both sides as context.
 */
export function sideBySide(diff: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let left = 0;
  let right = 0;
  let removed: Array<{ text: string; no: number }> = [];
  let added: Array<{ text: string; no: number }> = [];
  const flush = () => {
    for (let i = 0; i < Math.max(removed.length, added.length); i += 1) {
      const before = removed[i];
      const after = added[i];
      rows.push({
        kind: before && after ? 'changed' : before ? 'removed' : 'added',
        left: before?.text ?? null,
        right: after?.text ?? null,
        leftNo: before?.no ?? null,
        rightNo: after?.no ?? null,
      });
    }
    removed = [];
    added = [];
  };
  for (const line of diff.split('\n')) {
    if (line.startsWith('===') || line.startsWith('--- ') || line.startsWith('+++ ') || line.startsWith('Index: ')) continue;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      flush();
      left = Number(hunk[1]);
      right = Number(hunk[2]);
      rows.push({ kind: 'hunk', text: line });
    } else if (line.startsWith('-')) {
      removed.push({ text: line.slice(1), no: left++ });
    } else if (line.startsWith('+')) {
      added.push({ text: line.slice(1), no: right++ });
    } else if (line.startsWith(' ')) {
      flush();
      rows.push({ kind: 'same', left: line.slice(1), right: line.slice(1), leftNo: left++, rightNo: right++ });
    } else if (line.length > 0) {
      flush();
      rows.push({ kind: 'same', left: line, right: line, leftNo: null, rightNo: null });
    }
  }
  flush();
  return rows;
}
