import { DOCUMENT_PAGE_CHARACTERS } from '@lib/contracts';
import { parseOffice } from 'officeparser';
import { type DocumentBlock, type DocumentPart, type Inline, writeDocument } from './document-markup';
import { type DocumentPages, DocumentUnreadableError, type ReadDocument, stopBefore } from './document-reading';
import { ZIP_LIMITS, zipEntriesWithin } from './zip-budget';

/** The formats officeparser reads for this reader (decision 0039); XLSX and CSV have readers of their own. */
export type OfficeFormat = 'docx' | 'pptx' | 'odt' | 'ods' | 'odp' | 'epub' | 'rtf';

/** The node shape of officeparser's AST, as far as this reader walks it. */
interface OfficeNode {
  type: string;
  text?: string;
  children?: OfficeNode[];
  metadata?: Record<string, unknown>;
  notes?: OfficeNode[];
}

/** What a slide or sheet's reading takes from the document beyond its blocks. */
interface Reading {
  notes: Array<{ id: string; text: string }>;
  nextNote: number;
}

/**
 * A word-processing document, presentation or OpenDocument file read into markdown: officeparser
 * parses it into its AST (after zip-budget has inflated and counted every entry, so a zip bomb is
 * refused before the library opens it), and this reader writes the AST's headings, paragraphs,
 * lists, tables, links and notes through document-markup. A slide or a sheet is a page (`pages`
 * picks them); a flowing document is one part, charged by its text.
 */
export async function readOffice(bytes: Buffer, format: OfficeFormat, pages: DocumentPages): Promise<ReadDocument> {
  if (format !== 'rtf') await zipEntriesWithin(bytes);
  const controller = new AbortController();
  const budget = setTimeout(() => controller.abort(), Math.min(2 ** 31 - 1, Math.max(0, pages.deadline - performance.now())));
  let ast: Awaited<ReturnType<typeof parseOffice>>;
  try {
    ast = await parseOffice(bytes, {
      ignoreComments: true,
      ignoreHeadersAndFooters: true,
      ignoreSlideMasters: true,
      extractAttachments: false,
      ocr: false,
      abortSignal: controller.signal,
      decompressionLimits: {
        maxUncompressedBytes: ZIP_LIMITS.maxExpandedBytes,
        maxZipEntries: ZIP_LIMITS.maxEntries,
        maxTableCells: 1_000_000,
      },
    });
  } catch (error) {
    if (controller.signal.aborted)
      throw new DocumentUnreadableError('document_too_large', `The ${format} file was not read within its time budget.`);
    throw new DocumentUnreadableError('document_corrupt', `The ${format} file could not be read: ${(error as Error).message}`);
  } finally {
    clearTimeout(budget);
  }
  const content = (ast.content ?? []) as OfficeNode[];
  const paged = content.length > 0 && content.every((node) => node.type === 'slide' || node.type === 'sheet');
  const units = paged ? content : [{ type: 'document', children: content }];
  const reading: Reading = { notes: [], nextNote: 1 };
  const parts: DocumentPart[] = [];
  let cut: ReadDocument['cut'] = null;
  for (const [i, unit] of units.entries()) {
    const n = i + 1;
    if (!pages.wanted(n)) continue;
    cut = stopBefore(pages, parts.length);
    if (cut) break;
    const blocks = unit.type === 'sheet' ? sheetBlocks(unit) : blocksOf(unit.children ?? [], reading);
    if (unit.type === 'slide')
      for (const note of unit.notes ?? []) blocks.push({ kind: 'quote', label: 'Notes', inline: inlineOf([note], reading) });
    parts.push({ n, blocks });
  }
  const written = writeDocument(parts, reading.notes);
  const metadata = ast.metadata as { title?: string; author?: string; created?: Date | string; language?: string } | undefined;
  const characters = written.text.length;
  return {
    ...written,
    metadata: {
      title: textOf(metadata?.title),
      author: textOf(metadata?.author),
      created: dateText(metadata?.created),
      language: textOf(metadata?.language),
      page_count: units.length,
    },
    pages: parts.map((part) => part.n),
    charged: paged ? parts.length : parts.length === 0 ? 0 : Math.max(1, Math.ceil(characters / DOCUMENT_PAGE_CHARACTERS)),
    recognised: 0,
    cut,
    ocrRequired: false,
  };
}

/** The AST's block nodes in order; list items of one list (adjacent list nodes) become one list. */
function blocksOf(nodes: OfficeNode[], reading: Reading): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  for (const node of nodes) {
    switch (node.type) {
      case 'heading':
        blocks.push({ kind: 'heading', level: Number(node.metadata?.level) || 1, inline: inlineOf(node.children ?? [node], reading) });
        break;
      case 'paragraph':
      case 'definitionTerm':
      case 'definitionDescription': {
        const inline = inlineOf(node.children ?? [node], reading);
        if (inline.some((run) => 'note' in run || run.text.trim() !== '')) blocks.push({ kind: 'paragraph', inline });
        break;
      }
      case 'list': {
        const item = {
          ordered: node.metadata?.listType === 'ordered',
          depth: Math.min(8, Number(node.metadata?.indentation) || 0),
          inline: inlineOf(node.children ?? [node], reading),
        };
        // One list: adjacent items of the same list id (a nested item may be of either kind).
        const last = blocks[blocks.length - 1];
        const list = node.metadata?.listId ?? null;
        if (last?.kind === 'list' && last.id === list && (item.depth > 0 || last.items[0]?.ordered === item.ordered)) last.items.push(item);
        else blocks.push({ kind: 'list', id: list, items: [item] });
        break;
      }
      case 'table':
        blocks.push({ kind: 'table', rows: (node.children ?? []).map((row) => (row.children ?? []).map((cell) => cellText(cell))) });
        break;
      case 'code':
        blocks.push({ kind: 'code', text: node.text ?? '' });
        break;
      case 'image':
      case 'chart':
      case 'drawing':
      case 'break':
      case 'comment':
      case 'header':
      case 'footer':
      case 'slideMaster':
      case 'embed':
      case 'note':
        break;
      default:
        // Containers (pages, admonitions, definition lists, text boxes): their blocks in order.
        if (node.children?.length) blocks.push(...blocksOf(node.children, reading));
        else if (node.text?.trim()) blocks.push({ kind: 'paragraph', inline: [{ text: node.text }] });
    }
  }
  return blocks;
}

/** A block's runs: text, links, and a footnote reference where a run carries its note. */
function inlineOf(nodes: OfficeNode[], reading: Reading): Inline[] {
  const runs: Inline[] = [];
  for (const node of nodes) {
    if (node.type === 'text' || !node.children?.length) {
      const link = typeof node.metadata?.link === 'string' && node.metadata.linkType !== 'internal' ? node.metadata.link : undefined;
      if (node.text) runs.push(link ? { text: node.text, href: link } : { text: node.text });
    } else runs.push(...inlineOf(node.children, reading), { text: ' ' });
    for (const note of node.notes ?? []) {
      const id = String(reading.nextNote++);
      reading.notes.push({ id, text: note.text ?? '' });
      runs.push({ note: id });
    }
  }
  return runs;
}

/** A sheet (ODS) as a heading and one table. */
function sheetBlocks(sheet: OfficeNode): DocumentBlock[] {
  const rows = (sheet.children ?? []).filter((row) => row.type === 'row').map((row) => (row.children ?? []).map((cell) => cellText(cell)));
  const name = typeof sheet.metadata?.sheetName === 'string' ? sheet.metadata.sheetName : null;
  return [
    ...(name ? [{ kind: 'heading' as const, level: 2, inline: [{ text: name }] }] : []),
    ...(rows.length ? [{ kind: 'table' as const, rows }] : []),
  ];
}

/** A cell's text: its own, else its descendants' (some parsers keep it only on the runs). */
function cellText(cell: OfficeNode): string {
  const text = cell.text?.trim() ? cell.text : textWithin(cell);
  return text.replace(/\s+/g, ' ').trim();
}

function textWithin(node: OfficeNode): string {
  if (!node.children?.length) return node.text ?? '';
  return node.children.map(textWithin).join(node.children.every((child) => child.type === 'text') ? '' : ' ');
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function dateText(value: unknown): string | null {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}
