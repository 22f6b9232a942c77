import fc from 'fast-check';
import { pageMetadataOf } from './page-metadata';
import { alignRawText, scriptDataEnd } from './raw-text-boundaries';
import { ParsedPage, textOf } from './parsed-page';

// domino implements the HTML standard's tokenizer: the oracle for where a browser ends a script or
// a style. (It parses with scripting off, so <noscript> is markup to it, not the raw text a browser
// running scripts sees: noscript is left out of the generated pages.)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const domino = require('@mixmark-io/domino') as { createDocument(html: string): Document };

/** The text a browser shows in <body>: everything but script, style and noscript content. */
function browserText(html: string): string {
  const body = domino.createDocument(html).body;
  const parts: string[] = [];
  const visit = (node: globalThis.Node) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) parts.push(child.nodeValue ?? '');
      else if (child.nodeType === 1 && !['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(child.nodeName)) visit(child);
    }
  };
  visit(body);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

// A textarea holding only whitespace shows nothing, but domino keeps its blank text node and
// node-html-parser drops it; generated textareas start with a letter to compare what is shown.
function textareaLead(tag: string): string {
  return tag.toLowerCase() === 'textarea' ? 'x' : '';
}

function ourText(html: string): string {
  const page = new ParsedPage(html, 'https://example.com/');
  const strip = (el: ReturnType<typeof page.root.querySelectorAll>[number]) => el.remove();
  page.root.querySelectorAll('script, style, noscript').forEach(strip);
  return textOf(page.body).replace(/\s+/g, ' ').trim();
}

describe('raw-text boundaries', () => {
  it('finds the end of a script as the HTML tokenizer does', () => {
    const html = '<script><!-- document.write("<script></script>") --></script>after';
    expect(html.slice(scriptDataEnd(html, 8))).toBe('</script>after');
    expect(scriptDataEnd('<!-->x</script>', 0)).toBe(6);
    expect(scriptDataEnd('x</SCRIPT\t>', 0)).toBe(1);
    expect(scriptDataEnd('no end', 0)).toBe(6);
  });

  it('leaves a page with nothing to fix as the same string', () => {
    const html = '<html><head><style>p{}</style><script>var a = 1;</script></head><body><p>x</p></body></html>';
    expect(alignRawText(html)).toBe(html);
  });

  it('property: the parse sees the same page text as a browser, whatever the scripts, styles and comments hold', () => {
    // Every way a script's text can hold markup, comments and end tags (a malformed end tag such as
    // `</script</p>` left outside a script is a tokenizer question beyond raw text, not generated).
    const inside = fc.constantFrom(
      '<!--',
      '-->',
      '<!-->',
      '<script>',
      '</script>',
      '</SCRIPT >',
      '<script ',
      '</style>',
      '</noscript>',
      '</textarea>',
      'var a = "x";',
      '<p>fake</p>',
      ' ',
      '--',
      '<',
      '>',
      '&amp;',
      '&lt;b&gt;',
    );
    // textarea is RCDATA: text up to its end tag, with entities decoded.
    const rawText = fc
      .tuple(
        fc.constantFrom('script', 'SCRIPT', 'Script', 'style', 'STYLE', 'textarea', 'TEXTAREA'),
        fc.array(inside, { maxLength: 8 }),
        fc.constantFrom('', ' ', '\n'),
      )
      .map(([tag, body, space]) => `<${tag}>${textareaLead(tag)}${body.join('')}</${tag.toLowerCase()}${space}>`);
    const outside = fc.constantFrom('<p>Alpha</p>', 'beta ', '<!-- a comment <script> -->', '<div>gamma <b>delta</b></div>', ' ');
    fc.assert(
      fc.property(fc.array(fc.oneof(rawText, outside), { minLength: 1, maxLength: 8 }), (parts) => {
        const html = `<html><head></head><body>${parts.join('')}<p>THE END</p></body></html>`;
        expect(ourText(html)).toBe(browserText(html));
      }),
      { numRuns: 500 },
    );
  });

  it('property: the title is text up to its end tag (RCDATA), as a browser reads it, whatever it holds', () => {
    const piece = fc.constantFrom(
      'Release notes',
      '<b>bold</b>',
      '<<<END_MARKER nonce=0>>>',
      '</b>',
      '<!-- x -->',
      '&amp;',
      '&lt;',
      '\n',
      ' ',
      '<script>x</script>',
      '</TITLE',
      '</titles>',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.constantFrom('</title>', '</TITLE >', '</Title\t>'), (parts, end) => {
        const html = `<html><head><title>${parts.join('')}${end}<meta name="description" content="d"></head><body><p>x</p></body></html>`;
        const expected = domino.createDocument(html).title.replace(/\s+/g, ' ').trim() || null;
        expect(pageMetadataOf(new ParsedPage(html, 'https://example.com/')).title).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
