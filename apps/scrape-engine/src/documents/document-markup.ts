/**
 * A read document's blocks, written out as markdown, HTML and text the one way for every format
 * that is not a PDF (the PDF reader lays out its own): headings, paragraphs, lists, tables (GFM,
 * first row the header), code, notes, each part behind its `<!-- page N -->` marker.
 */
export type DocumentBlock =
  | { kind: 'heading'; level: number; inline: Inline[] }
  | { kind: 'paragraph'; inline: Inline[] }
  | { kind: 'list'; id?: unknown; items: Array<{ ordered: boolean; depth: number; inline: Inline[] }> }
  | { kind: 'table'; rows: string[][] }
  | { kind: 'code'; text: string }
  | { kind: 'quote'; label: string; inline: Inline[] };

/** A run of text, a link, or a footnote reference (its note written at the end of the document). */
export type Inline = { text: string; href?: string } | { note: string };

export interface DocumentPart {
  /** The page, slide or sheet number (from 1). */
  n: number;
  blocks: DocumentBlock[];
}

export interface WrittenDocument {
  markdown: string;
  html: string;
  text: string;
  links: string[];
}

export function writeDocument(parts: DocumentPart[], notes: Array<{ id: string; text: string }>): WrittenDocument {
  const links = new Set<string>();
  const inlineMarkdown = (inline: Inline[]) =>
    inline
      .map((run) => {
        if ('note' in run) return `[^${run.note}]`;
        const text = escapeMarkdown(run.text);
        if (run.href && /^(https?:|mailto:)/i.test(run.href) && run.text.trim()) {
          if (/^https?:/i.test(run.href) && links.size < 1000) links.add(run.href);
          return `[${text.trim()}](${run.href.replace(/[()\s]/g, encodeURIComponent)})`;
        }
        return text;
      })
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
  const inlineHtml = (inline: Inline[]) =>
    inline
      .map((run) =>
        'note' in run
          ? `<sup><a href="#note-${escapeHtml(run.note)}">${escapeHtml(run.note)}</a></sup>`
          : run.href && /^(https?:|mailto:)/i.test(run.href)
            ? `<a href="${escapeHtml(run.href)}">${escapeHtml(run.text)}</a>`
            : escapeHtml(run.text),
      )
      .join('');
  const inlineText = (inline: Inline[]) =>
    inline
      .map((run) => ('note' in run ? '' : run.text))
      .join('')
      .replace(/\s+/g, ' ')
      .trim();

  const markdown: string[] = [];
  const html: string[] = [];
  const text: string[] = [];
  for (const part of parts) {
    markdown.push(`<!-- page ${part.n} -->`);
    html.push(`<section data-page="${part.n}">`);
    for (const block of part.blocks) {
      switch (block.kind) {
        case 'heading': {
          // An empty heading (an EPUB chapter's, pandoc's untitled part) is no heading: `# ` alone reads as noise.
          if (inlineText(block.inline) === '') break;
          const level = Math.min(6, Math.max(1, block.level));
          markdown.push(`${'#'.repeat(level)} ${inlineMarkdown(block.inline)}`);
          html.push(`<h${level}>${inlineHtml(block.inline)}</h${level}>`);
          text.push(inlineText(block.inline));
          break;
        }
        case 'paragraph':
          markdown.push(inlineMarkdown(block.inline));
          html.push(`<p>${inlineHtml(block.inline)}</p>`);
          text.push(inlineText(block.inline));
          break;
        case 'quote':
          markdown.push(`> **${escapeMarkdown(block.label)}:** ${inlineMarkdown(block.inline)}`);
          html.push(`<blockquote><strong>${escapeHtml(block.label)}:</strong> ${inlineHtml(block.inline)}</blockquote>`);
          text.push(`${block.label}: ${inlineText(block.inline)}`);
          break;
        case 'list': {
          const counters: number[] = [];
          markdown.push(
            block.items
              .map((item) => {
                counters.length = item.depth + 1;
                counters[item.depth] = (counters[item.depth] ?? 0) + 1;
                return `${'   '.repeat(item.depth)}${item.ordered ? `${counters[item.depth]}.` : '-'} ${inlineMarkdown(item.inline)}`;
              })
              .join('\n'),
          );
          const ordered = block.items[0]?.ordered ?? false;
          html.push(
            `<${ordered ? 'ol' : 'ul'}>${block.items.map((item) => `<li>${inlineHtml(item.inline)}</li>`).join('')}</${ordered ? 'ol' : 'ul'}>`,
          );
          text.push(block.items.map((item) => inlineText(item.inline)).join('\n'));
          break;
        }
        case 'table': {
          const width = Math.max(...block.rows.map((row) => row.length));
          if (width === 0) break;
          const rows = block.rows.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? ''));
          const line = (row: string[]) => `| ${row.map(escapeCell).join(' | ')} |`;
          markdown.push(
            [line(rows[0]!), `| ${Array.from({ length: width }, () => '---').join(' | ')} |`, ...rows.slice(1).map(line)].join('\n'),
          );
          html.push(
            `<table><thead><tr>${rows[0]!.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>${rows
              .slice(1)
              .map((row) => `<tr>${row.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`)
              .join('')}</tbody></table>`,
          );
          text.push(rows.map((row) => row.join('\t')).join('\n'));
          break;
        }
        case 'code': {
          const fence = '`'.repeat(Math.max(3, ...[...block.text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
          markdown.push(`${fence}\n${block.text}\n${fence}`);
          html.push(`<pre><code>${escapeHtml(block.text)}</code></pre>`);
          text.push(block.text);
          break;
        }
      }
    }
    html.push('</section>');
  }
  if (notes.length > 0) {
    markdown.push(...notes.map((note) => `[^${note.id}]: ${escapeMarkdown(note.text.replace(/\s+/g, ' ').trim())}`));
    html.push(
      `<section data-notes>${notes.map((note) => `<p id="note-${escapeHtml(note.id)}">${escapeHtml(note.text)}</p>`).join('')}</section>`,
    );
    text.push(...notes.map((note) => note.text.trim()));
  }
  return {
    markdown: markdown.filter((block) => block !== '').join('\n\n') + '\n',
    html: html.join(''),
    text: text.filter((block) => block !== '').join('\n\n') + '\n',
    links: [...links],
  };
}

/** Text that markdown would read as markup where it stands: a line's leading #, >, list marker; emphasis and link brackets. */
function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, '\\$1').replace(/^(\s*)(#{1,6}\s|[-+]\s|\d+[.)]\s)/, '$1\\$2');
}

function escapeCell(cell: string): string {
  return escapeMarkdown(cell)
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, '<br>');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
