import { joinRuns, type Line, sameBaseline, type TextRun } from './pdf-layout';

/**
 * Tables in a PDF's text layer, which draws none (decision 0039): a table is rows of text on
 * successive baselines whose pieces start at the same few x positions and never run across
 * another row's column start — a paragraph's line runs across them. Pure functions over the runs
 * pdf.js gives, as pdf-layout's; the rows become one line that carries its cells.
 */

/** A baseline's text between gaps wider than a word's space: a table cell's line, or a paragraph's. */
interface Piece {
  x: number;
  right: number;
  runs: TextRun[];
}

interface Baseline {
  y: number;
  size: number;
  runs: TextRun[];
  pieces: Piece[];
  /** Taken as the table's header: its cells are centred over their columns, so they tell no column's start. */
  header?: boolean;
}

/** How far apart two starts may be and still be one column's. */
const ALIGNED = 1.5;
/**
 * A gap of more than this (× the font size) between two runs of a baseline parts two pieces: a
 * word's space is about 0.25 (0.6 in a monospaced font), and so can a narrow column's padding be —
 * such a cell is told by a run starting right at a column the other rows found (piecesAt).
 */
const PIECE_GAP = 0.8;
/** Rows of one table follow each other closer than this (× the font size); a paragraph's spacing is wider. */
const ROW_PITCH = 1.75;
/** A row after a taller one, its cells centred, starts this far (× the font size) below the taller one's last line at most. */
const CENTRED_ROW_PITCH = 4;
/** A line of one cell follows the one above closer than this (× the font size); a new row comes after the cell's padding too. */
const CELL_LINE_PITCH = 1.3;
/** A tall cell's first line stands at most this many lines (× the font size) above its row's centred cells. */
const TALL_CELL_LINES = 8;
/** A table with more of its cells empty than this share is not read as one. */
const MOST_EMPTY = 0.35;
/** More lines than this one under another from one left edge, each of one piece across most of the table, are a paragraph's, not a cell's. */
const PARAGRAPH_LINES = 8;
/** A list item's marker: "3.", "b)", "iv.", a bullet. */
const LIST_MARKER = /^(\d{1,3}[.)]|[a-z][.)]|[ivx]{1,5}[.)]|[•·▪◦●■□○–—*-])$/i;

/** The page's runs without its tables' runs, and each table as a line carrying its rows (the first row its header). */
export function tablesOf(runs: TextRun[]): { rest: TextRun[]; tables: Line[] } {
  const baselines = baselinesOf(runs);
  const taken = new Set<TextRun>();
  const tables: Line[] = [];
  // Baselines above this one belong to a table already read: no later table takes them as its header.
  let floor = 0;
  for (let i = 0; i < baselines.length; i += 1) {
    if (!mayStartTable(baselines, i)) continue;
    const found = tableFrom(baselines, i, floor);
    if (!found) continue;
    for (const baseline of found.region) for (const run of baseline.runs) taken.add(run);
    tables.push(found.table);
    i = found.end;
    floor = found.end + 1;
  }
  return { rest: tables.length === 0 ? runs : runs.filter((run) => !taken.has(run)), tables };
}

/**
 * The table from baseline `i`, or from the one after with `i` over it as its header — a header's
 * cells centred over their columns would keep the rows below from fitting the columns it starts
 * — whichever reaches further down.
 */
function tableFrom(baselines: Baseline[], i: number, floor: number): { region: Baseline[]; table: Line; end: number } | null {
  const indexOf = (b: Baseline) => baselines.findIndex((source) => source.runs === b.runs);
  let best: { region: Baseline[]; table: Line; end: number } | null = null;
  for (const first of [i, i + 1]) {
    if (first >= baselines.length || (first > i && baselines[i].pieces.length < 2)) continue;
    const region = regionFrom(baselines, first, floor);
    const table = region && tableOf(region, baselines);
    if (!region || !table || (best && indexOf(region[0]) !== i)) continue;
    const end = indexOf(region[region.length - 1]);
    if (!best || end > best.end) best = { region, table, end };
  }
  return best;
}

/**
 * A table starts at a baseline with two cells side by side, or where a block starts (a row's cells
 * may be drawn one after another, each on baselines of its own): never inside a paragraph.
 */
function mayStartTable(baselines: Baseline[], i: number): boolean {
  const here = baselines[i];
  const above = baselines[i - 1];
  if (here.pieces.length >= 2 || !above || !closeBelow(above, here)) return true;
  return Math.abs((above.pieces[0]?.x ?? 0) - (here.pieces[0]?.x ?? 0)) > ALIGNED;
}

/** Runs drawn one after another on one baseline, as pdf.js gives them in drawing order. */
function baselinesOf(runs: TextRun[]): Baseline[] {
  const out: Array<Omit<Baseline, 'pieces'>> = [];
  for (const run of runs) {
    if (run.text === '') continue;
    const last = out[out.length - 1];
    if (last && sameBaseline(last, run)) {
      last.runs.push(run);
      last.size = Math.max(last.size, run.size);
    } else out.push({ y: run.y, size: run.size, runs: [run] });
  }
  return out.map((b) => ({ ...b, pieces: piecesOf(b.runs) }));
}

function piecesOf(runs: TextRun[]): Piece[] {
  const pieces: Piece[] = [];
  for (const run of runs.filter((r) => r.text.trim() !== '').sort((a, b) => a.x - b.x)) {
    const last = pieces[pieces.length - 1];
    if (last && run.x - last.right < run.size * PIECE_GAP) {
      last.runs.push(run);
      last.right = Math.max(last.right, run.x + run.width);
    } else pieces.push({ x: run.x, right: run.x + run.width, runs: [run] });
  }
  return pieces;
}

/** Whether one of a piece's runs (not its first) starts at x: a cell's start hidden in a piece. */
function startsAt(piece: Piece, x: number): boolean {
  return piece.runs.some((r, i) => i > 0 && r.text.trim() !== '' && Math.abs(r.x - x) <= ALIGNED);
}

/** Whether a piece runs across a column start (it is a paragraph's line, not a cell's). */
function crosses(piece: Piece, start: number): boolean {
  return piece.x < start - ALIGNED && piece.right > start + ALIGNED;
}

/**
 * The baselines from `first` on that keep to one another's columns, close together down the page,
 * with the header over them when there is one (headerOver).
 */
function regionFrom(baselines: Baseline[], first: number, floor: number): Baseline[] | null {
  const region = [baselines[first]];
  // Every piece's start, and every piece, so far: what the next baseline is held against.
  const starts: number[] = [];
  const placed: Piece[] = [];
  // How far the pieces so far reach across the page.
  let left = Infinity;
  let right = -Infinity;
  const take = (baseline: Baseline) => {
    for (const piece of baseline.pieces) {
      placed.push(piece);
      left = Math.min(left, piece.x);
      right = Math.max(right, piece.right);
      if (!starts.some((x) => Math.abs(x - piece.x) <= ALIGNED)) starts.push(piece.x);
    }
  };
  take(baselines[first]);
  // A header's cells may be centred over their columns: the rows below run across where they start.
  const fits = (next: Baseline, header = false): Baseline | null => {
    const pieces = piecesAt(next, starts, header);
    if (!pieces) return null;
    // A piece above may hold two cells set closer than PIECE_GAP: a run of it starting at the new
    // piece's start says so (it is split there at the end), a paragraph's line has none.
    if (!header && placed.some((p) => pieces.some((q) => crosses(p, q.x) && !startsAt(p, q.x)))) return null;
    return { ...next, pieces };
  };
  // The lowest line of the row above the one being read: the row's cells stay below it.
  // The first row's taller cells may start above the baseline the row was found at (its short cells
  // centred against them, and drawn first): up to what was drawn before it, when that stands above.
  const before = baselines[first - 1];
  const start = baselines[first];
  let ceiling =
    before && before.y > start.y
      ? Math.min(before.y - before.size * 0.5, start.y + start.size * TALL_CELL_LINES)
      : start.y + (start.size * CENTRED_ROW_PITCH) / 2;
  // Where the last row started, and whether far below the row above (a short cell centred in a tall row).
  let lastRow = { at: 0, far: false };
  let bottom = baselines[first].y;
  // Lines one under another from one left edge, each one piece: a paragraph's, past a cell's few.
  let flush = 0;
  for (let j = first + 1; j < baselines.length; j += 1) {
    const next = baselines[j];
    if (!withinRows(region, starts, bottom, ceiling, next)) break;
    const fitted = fits(next);
    if (!fitted) break;
    const previous = region[region.length - 1];
    // A cell's lines in a narrow column are narrow beside the table; a paragraph's run across most of it.
    const wide = fitted.pieces.length === 1 && fitted.pieces[0].right - fitted.pieces[0].x > (right - left) * 0.5;
    flush = wide && previous.pieces.length === 1 && Math.abs(fitted.pieces[0].x - previous.pieces[0].x) <= ALIGNED ? flush + 1 : 0;
    if (flush >= PARAGRAPH_LINES) {
      region.splice(region.length - flush + 1);
      break;
    }
    if (bottom - next.y > next.size * CELL_LINE_PITCH) {
      ceiling = bottom - next.size * 0.5;
      lastRow = { at: region.length, far: bottom - next.y > next.size * ROW_PITCH };
    }
    region.push(fitted);
    take(fitted);
    bottom = Math.min(bottom, next.y);
  }
  if (lastRow.at >= region.length) lastRow = { at: 0, far: false };
  // A line far below the table, alone in its row, is what follows the table (a heading, a caption).
  if (lastRow.far && region.slice(lastRow.at).every((b) => b.pieces.length === 1 && b.pieces[0].x === region[lastRow.at].pieces[0].x))
    region.splice(lastRow.at);
  // Cells of a row may be drawn on baselines of their own (centred against a taller cell): three
  // baselines keeping to the columns are enough when only the first has two cells side by side.
  if (region.filter((b) => b.pieces.length >= 2).length < 2 && region.length < 3) return null;
  const header = headerOver(baselines, first, floor, region, (b) => fits(b, true));
  // Pieces taken before a column's start was known are split at it now.
  return [...header, ...region].map((b) => ({ ...b, pieces: piecesAt(b, starts) ?? b.pieces }));
}

/**
 * The header over a table's rows: baselines drawn just before the first row that fit its columns
 * and stand above it, the lowest within two lines of the row's highest line (a tall cell's first,
 * drawn after the short ones), each next one up within a row's pitch of the one below (a header
 * cell wrapped, the others centred against it, each on a baseline of its own; or the rest of a row
 * the column broke, under the header repeated), two cells at least between them.
 */
function headerOver(
  baselines: Baseline[],
  first: number,
  floor: number,
  region: Baseline[],
  fits: (b: Baseline) => Baseline | null,
): Baseline[] {
  const top = Math.max(...region.map((b) => b.y));
  const size = region[0].size;
  const drawn: Baseline[] = [];
  for (let j = first - 1; j >= floor; j -= 1) {
    const b = baselines[j];
    // A header of a few lines at most: how far they reach is held to below.
    if (b.y <= top || b.y > top + size * CENTRED_ROW_PITCH * 2) break;
    const fitted = fits(b);
    if (!fitted) break;
    drawn.unshift(fitted);
  }
  const header: Baseline[] = [];
  let below = top;
  for (const b of [...drawn].sort((p, q) => p.y - q.y)) {
    if (b.y - below > Math.max(b.size, size) * (header.length === 0 ? 2 : ROW_PITCH)) break;
    header.push(b);
    below = b.y;
  }
  const cells = header.reduce((n, b) => n + b.pieces.length, 0);
  return cells >= 2 ? drawn.filter((b) => header.includes(b)).map((b) => ({ ...b, header: true })) : [];
}

function closeBelow(above: Baseline, below: Baseline): boolean {
  const drop = above.y - below.y;
  return drop > 0 && drop <= Math.max(above.size, below.size) * ROW_PITCH;
}

/**
 * The next baseline drawn is the table's when it is close below the lowest so far, or beside the
 * row being read (a row's cells are drawn one after another, a tall one's lines before the next
 * cell's first, a short one centred against a tall one): below the row above (`ceiling`), never a
 * column's height away (the next column of a page).
 */
function withinRows(region: Baseline[], starts: number[], bottom: number, ceiling: number, next: Baseline): boolean {
  const size = Math.max(next.size, region[0].size);
  // A cell centred in a row below a taller one sits further down, but starts where its column does.
  // So does a row of cells side by side below a header whose cells are centred over their columns.
  const aligned = next.pieces.every((p) => starts.some((x) => Math.abs(p.x - x) <= ALIGNED));
  const reach = size * (aligned || next.pieces.length >= 2 ? CENTRED_ROW_PITCH : ROW_PITCH);
  return next.y < ceiling && next.y >= bottom - reach;
}

/**
 * The baseline's pieces against the columns `starts`: a piece that runs across a column is split
 * where one of its runs starts at that column (a cell set a space's width from the next), or the
 * baseline does not fit (a paragraph's line).
 */
function piecesAt(baseline: Baseline, starts: number[], centred = false): Piece[] | null {
  const out: Piece[] = [];
  for (const piece of baseline.pieces) {
    const crossed = starts.filter((s) => crosses(piece, s));
    if (crossed.length === 0) {
      out.push(piece);
      continue;
    }
    const cuts = crossed.map((s) => cutAt(piece, s, centred));
    if (cuts.some((at) => at <= 0)) return null;
    let from = 0;
    for (const at of [...new Set(cuts)].sort((a, b) => a - b)) {
      out.push(pieceOf(piece.runs.slice(from, at)));
      from = at;
    }
    out.push(pieceOf(piece.runs.slice(from)));
  }
  return out;
}

/**
 * Where a piece is cut at column start `s`: at the run that starts there; for a header's cells,
 * centred in their columns, at the run after a gap that `s` falls in. -1 when there is none.
 */
function cutAt(piece: Piece, s: number, centred: boolean): number {
  const at = piece.runs.findIndex((r) => r.text.trim() !== '' && Math.abs(r.x - s) <= ALIGNED);
  if (at !== -1 || !centred) return at;
  let end = Number.NEGATIVE_INFINITY;
  for (const [i, run] of piece.runs.entries()) {
    if (run.text.trim() === '') continue;
    if (i > 0 && end <= s + ALIGNED && run.x >= s - ALIGNED) return i;
    end = run.x + run.width;
  }
  return -1;
}

function pieceOf(runs: TextRun[]): Piece {
  const kept = runs.filter((r) => r.text.trim() !== '');
  return { x: kept[0].x, right: Math.max(...kept.map((r) => r.x + r.width)), runs };
}

/** The region as a table, or null when it reads better as what it is (a list, two columns of text). */
function tableOf(region: Baseline[], page: Baseline[]): Line | null {
  const columns = columnsOf(region);
  if (columns.length < 2) return null;
  const size = Math.max(...region.map((b) => b.size));
  const placed = region
    .flatMap((b) => b.pieces.map((piece) => ({ y: b.y, x: piece.x, column: columnOf(columns, piece), text: textOf(piece) })))
    .sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: string[][] = [];
  for (const ys of rowsOf(
    placed.map((p) => p.y),
    size,
  )) {
    const cells = columns.map(() => '');
    for (const piece of placed.filter((p) => ys.includes(p.y)))
      cells[piece.column] = cells[piece.column] ? `${cells[piece.column]} ${piece.text}` : piece.text;
    rows.push(cells);
  }
  if (rows.length < 2) return null;
  // Indented lines (a table of contents, a nested list) keep to columns too, a cell a row.
  if (rows.filter((row) => row.filter((cell) => cell !== '').length >= 2).length < 2) return null;
  // Rows that leave most of their cells empty are cells put in the wrong rows (lines of wrapped cells
  // drawn apart): the text in reading order serves better than such a table.
  const empty = rows.reduce((n, row) => n + row.filter((cell) => cell === '').length, 0);
  if (empty > rows.length * columns.length * MOST_EMPTY) return null;
  // A list's markers stand in a column of their own, its items' wrapped lines beside it.
  const firsts = rows.map((row) => row.find((cell) => cell !== '') ?? '');
  if (firsts.filter((cell) => LIST_MARKER.test(cell)).length >= 2 && rows.every((row, i) => row[0] === '' || LIST_MARKER.test(firsts[i])))
    return null;
  if (columns.length === 2) {
    // Two columns of text side by side: a page set in two columns, not a table.
    // Fitted baselines are copies sharing their source's runs: the source is told by those.
    const across = page.filter((b) => !region.some((r) => r.runs === b.runs) && b.pieces.some((p) => crosses(p, columns[1]))).length;
    if (across < 3) return null;
  }
  const x = Math.min(...region.flatMap((b) => b.pieces.map((p) => p.x)));
  const right = Math.max(...region.flatMap((b) => b.pieces.map((p) => p.right)));
  const top = Math.max(...region.map((b) => b.y));
  return { text: rows.map((row) => row.join(' ')).join(' '), x, right, y: top, size, runs: [], table: rows };
}

/**
 * The table's baselines (top first) parted into rows: a row's lines follow closer than
 * CELL_LINE_PITCH (a cell's wrapped line, or a cell centred against a taller one); rows come further
 * apart (a cell's padding). Rows set as close as lines (no padding) are a row each.
 */
function rowsOf(ys: number[], size: number): number[][] {
  const distinct = [...new Set(ys)].sort((a, b) => b - a);
  const gaps = distinct.slice(1).map((y, i) => distinct[i] - y);
  const even = gaps.length > 0 && Math.max(...gaps) / Math.min(...gaps) < 1.15;
  const rows: number[][] = [];
  for (const [i, y] of distinct.entries())
    if (i === 0 || even || gaps[i - 1] > size * CELL_LINE_PITCH) rows.push([y]);
    else rows[rows.length - 1].push(y);
  return rows;
}

/**
 * Column starts: where pieces of two rows or more start (within ALIGNED); a piece that starts
 * elsewhere (a centred header, a right-aligned figure) belongs to the column it stands in.
 */
function columnsOf(region: Baseline[]): number[] {
  const body = region.some((b) => !b.header) ? region.filter((b) => !b.header) : region;
  const starts = body.flatMap((b, row) => b.pieces.map((p) => ({ x: p.x, row }))).sort((a, b) => a.x - b.x);
  const columns: number[] = [];
  let group: typeof starts = [];
  const close = () => {
    if (new Set(group.map((s) => s.row)).size >= 2) columns.push(group[0].x);
    group = [];
  };
  for (const start of starts) {
    if (group.length > 0 && start.x - group[0].x > ALIGNED) close();
    group.push(start);
  }
  if (group.length > 0) close();
  return columns;
}

function columnOf(columns: number[], piece: Piece): number {
  let k = 0;
  for (let i = 0; i < columns.length; i += 1) if (columns[i] <= piece.x + ALIGNED) k = i;
  return k;
}

/** A piece's words: a cell's runs are set tighter than a paragraph's, so a smaller gap parts words. */
function textOf(piece: Piece): string {
  return joinRuns(piece.runs, 0.1).trim();
}

/** The page's lines with its tables in place: each before the first line below its top that it stands over. */
export function withTables(lines: Line[], tables: Line[]): Line[] {
  const out = [...lines];
  for (const table of tables) {
    const at = out.findIndex((l) => !l.table && l.y < table.y && l.x < table.right && l.right > table.x);
    out.splice(at === -1 ? out.length : at, 0, table);
  }
  return out;
}
