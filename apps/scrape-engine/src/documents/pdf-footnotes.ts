import { joinLines, type Line, markdownOf, scriptSized, type TextRun } from './pdf-layout';

/**
 * Footnotes in a PDF's text layer (decision 0039): the lines a page's text ends with, set smaller
 * than the body, each note beginning with a marker ("1", "*", "†") that the page's body carries
 * raised and smaller (a superscript run) — small print at a page's foot with no marker in the
 * text is not a note. Pure functions over laid-out lines, as pdf-layout's.
 */

export interface Footnote {
  label: string;
  text: string;
  markdown: string;
}

/** A marker on its own: a number of up to three digits, or one of the symbols notes are marked by. */
const MARK = /^(\d{1,3}|[*†‡§¶])$/u;
/** A note's start: its marker, then its text. */
const NOTE_START = /^(\d{1,3}|[*†‡§¶])\s*(?=\S)/u;
/** A note is set at most this share of the body's size. */
const NOTE_SIZE = 0.9;
/** A superscript's baseline is raised at least this share of its line's size. */
const RAISED_BY = 0.15;

/**
 * The page's lines without its footnotes, and the notes, each with the label its body's markers
 * now carry (`note` on the marker run: markdown writes `[^label]`). `labelOf` makes a label unique
 * in the document (a page's numbering may start again).
 */
export function footnotesOf(
  lines: Line[],
  bodySize: number,
  pageHeight: number,
  labelOf: (mark: string) => string,
): { lines: Line[]; notes: Footnote[] } {
  let from = lines.length;
  while (from > 0) {
    const line = lines[from - 1];
    if (line.table || line.size > bodySize * NOTE_SIZE || line.y > pageHeight * 0.5) break;
    from -= 1;
  }
  // The small print begins at its first note's marker; what comes before it stays the page's text.
  while (from < lines.length && markOf(lines[from]) === null) from += 1;
  if (from === lines.length) return { lines, notes: [] };
  const body = lines.slice(0, from);
  const raised = raisedMarks(body);
  const groups: Array<{ mark: string; lines: Line[] }> = [];
  for (const line of lines.slice(from)) {
    const mark = markOf(line);
    if (mark !== null) groups.push({ mark, lines: [line] });
    else groups[groups.length - 1].lines.push(line);
  }
  if (!groups.some((group) => raised.has(group.mark))) return { lines, notes: [] };
  const notes = groups.map((group) => {
    const label = labelOf(group.mark);
    for (const run of raised.get(group.mark) ?? []) run.note = label;
    const [first, ...rest] = group.lines;
    const unmarked = [withoutMark(first), ...rest];
    return {
      label,
      text: joinLines(unmarked.map((l) => l.text)).trim(),
      markdown: joinLines(unmarked.map(markdownOf)).trim(),
    };
  });
  return { lines: body, notes };
}

/** The marker a line begins with, if it begins a note: a run of its own ("1" raised) or the start of its text ("1 See…"). */
function markOf(line: Line): string | null {
  const first = line.runs.find((r) => r.text.trim() !== '');
  if (!first) return null;
  if (MARK.test(first.text.trim()) && line.runs.some((r) => r !== first && r.text.trim() !== '')) return first.text.trim();
  return NOTE_START.exec(line.text)?.[1] ?? null;
}

/** The line without its marker: the marker's run left out, or the marker cut from the first run's text. */
function withoutMark(line: Line): Line {
  const index = line.runs.findIndex((r) => r.text.trim() !== '');
  const first = line.runs[index];
  const runs: TextRun[] = MARK.test(first.text.trim())
    ? line.runs.filter((_, i) => i !== index)
    : line.runs.map((r, i) => (i === index ? { ...r, text: r.text.trimStart().replace(NOTE_START, '') } : r));
  return { ...line, runs, text: line.text.replace(NOTE_START, '') };
}

/** The body's superscript markers by their text: runs set smaller than their line and raised above its baseline. */
function raisedMarks(lines: Line[]): Map<string, TextRun[]> {
  const marks = new Map<string, TextRun[]>();
  for (const line of lines) {
    if (line.table) continue;
    const main = line.runs.reduce((big, r) => (r.size > big.size && r.text.trim() !== '' ? r : big), line.runs[0]);
    for (const run of line.runs) {
      const mark = run.text.trim();
      if (run === main || !MARK.test(mark)) continue;
      if (scriptSized(run, main.size) && run.y - main.y >= main.size * RAISED_BY) marks.set(mark, [...(marks.get(mark) ?? []), run]);
    }
  }
  return marks;
}
