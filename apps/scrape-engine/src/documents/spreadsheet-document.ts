import { DOCUMENT_PAGE_CHARACTERS } from '@lib/contracts';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { type DocumentPart, writeDocument } from './document-markup';
import { type DocumentPages, DocumentUnreadableError, type ReadDocument, stopBefore } from './document-reading';
import { zipEntriesWithin } from './zip-budget';

/** Rows of one sheet (or a CSV) written as a table; the rest are left out and said so in the table's last row. */
export const SHEET_MAX_ROWS = 10_000;
/** Columns of one sheet written; a wider sheet's extra columns are left out. */
export const SHEET_MAX_COLUMNS = 200;

/**
 * A workbook read into markdown: every sheet a page (`pages` picks them) with its name as a heading
 * and its cells as one table (the first row its header), values as Excel shows them — a formula's
 * result, a date as ISO 8601, rich text as its text. exceljs reads the file after zip-budget has
 * inflated and counted it.
 */
export async function readXlsx(bytes: Buffer, pages: DocumentPages): Promise<ReadDocument> {
  await zipEntriesWithin(bytes);
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (error) {
    throw new DocumentUnreadableError('document_corrupt', `The workbook could not be read: ${(error as Error).message}`);
  }
  const parts: DocumentPart[] = [];
  let cut: ReadDocument['cut'] = null;
  const sheets = workbook.worksheets;
  for (const [i, sheet] of sheets.entries()) {
    const n = i + 1;
    if (!pages.wanted(n)) continue;
    cut = stopBefore(pages, parts.length);
    if (cut) break;
    const rows: string[][] = [];
    const width = Math.min(SHEET_MAX_COLUMNS, sheet.actualColumnCount || sheet.columnCount);
    sheet.eachRow({ includeEmpty: false }, (row) => {
      if (rows.length > SHEET_MAX_ROWS) return;
      rows.push(Array.from({ length: width }, (_, c) => cellValue(row.getCell(c + 1).value)));
    });
    parts.push({ n, blocks: sheetBlocks(sheet.name, rows) });
  }
  const written = writeDocument(parts, []);
  return {
    ...written,
    metadata: {
      title: workbook.title || null,
      author: workbook.creator || null,
      created: workbook.created instanceof Date && !Number.isNaN(workbook.created.getTime()) ? workbook.created.toISOString() : null,
      language: null,
      page_count: sheets.length,
    },
    pages: parts.map((part) => part.n),
    charged: parts.length,
    recognised: 0,
    cut,
    ocrRequired: false,
  };
}

/** A CSV (or TSV) as one table: its delimiter told from its first line, quotes as RFC 4180 has them. */
export function readCsv(text: string, pages: DocumentPages): ReadDocument {
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  const delimiter = [',', ';', '\t', '|'].reduce((best, d) => (firstLine.split(d).length > firstLine.split(best).length ? d : best), ',');
  let rows: string[][];
  try {
    rows = parse(text, {
      delimiter,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      to: SHEET_MAX_ROWS + 2,
      bom: true,
    });
  } catch (error) {
    throw new DocumentUnreadableError('document_corrupt', `The CSV could not be read: ${(error as Error).message}`);
  }
  const wanted = pages.wanted(1) && pages.max >= 1;
  const written = writeDocument(
    wanted
      ? [
          {
            n: 1,
            blocks: sheetBlocks(
              null,
              rows.map((row) => row.slice(0, SHEET_MAX_COLUMNS)),
            ),
          },
        ]
      : [],
    [],
  );
  return {
    ...written,
    metadata: { title: null, author: null, created: null, language: null, page_count: 1 },
    pages: wanted ? [1] : [],
    charged: wanted ? Math.max(1, Math.ceil(written.text.length / DOCUMENT_PAGE_CHARACTERS)) : 0,
    recognised: 0,
    cut: null,
    ocrRequired: false,
  };
}

function sheetBlocks(name: string | null, rows: string[][]): DocumentPart['blocks'] {
  const kept = rows.slice(0, SHEET_MAX_ROWS + 1);
  if (rows.length > SHEET_MAX_ROWS + 1) kept.push([`… rows past ${SHEET_MAX_ROWS} left out`]);
  return [
    ...(name ? [{ kind: 'heading' as const, level: 2, inline: [{ text: name }] }] : []),
    ...(kept.length ? [{ kind: 'table' as const, rows: kept }] : []),
  ];
}

/** A cell as Excel shows its value: a formula's result, a date in ISO 8601, rich text and hyperlinks as their text. */
function cellValue(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().replace(/T00:00:00\.000Z$/, '');
  if (typeof value !== 'object') return String(value);
  if ('result' in value) return cellValue(value.result as ExcelJS.CellValue);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('text' in value) return String(value.text);
  if ('error' in value) return String(value.error);
  return '';
}
