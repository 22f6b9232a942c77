import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { markerLookupOf, visibleTextLengthOf, visibleTextOf } from './page-text';
import { CAPTCHA_PROVIDERS, CHALLENGE_MARKERS, PROTECTION_PROVIDERS, SHELL_MARKERS } from './protection-rules';

// Pieces that meet every branch of the passes: tags (closed, unclosed, with entities inside),
// the dropped blocks, comments, entities of each form and their near misses, every kind of
// whitespace `\s` knows, and plain text.
const PIECES = [
  '<p>',
  '</p>',
  '<a href="x?a=1&amp;b=2">',
  '<br/>',
  '<',
  '>',
  '<div class="x"',
  '<script>var a = "<b>";</script>',
  '<SCRIPT type="x">x</script >',
  '<style>p{}</style>',
  '<head><title>t</title></head>',
  '<noscript>n</noscript>',
  '<template><p>t</p></template>',
  '<!-- c -->',
  '<!--',
  '-->',
  '&amp;',
  '&AMP;',
  '&#169;',
  '&#x1F600;',
  '&#X1f;',
  '&#;',
  '&#x;',
  '&#12a;',
  '&;',
  '&',
  ';',
  '#',
  'x',
  '&nbsp',
  ' ',
  '\n',
  '\t',
  '\r\n',
  '\u00a0',
  '\u2003',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\u200b',
  'word',
  'Ünïcödé',
  '😀',
];

const markup = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 6 })), { maxLength: 60 })
  .map((parts) => parts.join(''));

describe('visibleTextLengthOf', () => {
  it('equals visibleTextOf(html).length for any markup', () => {
    fc.assert(
      fc.property(markup, (html) => visibleTextLengthOf(html) === visibleTextOf(html).length),
      { numRuns: 5000 },
    );
  });

  it('equals it on every page of the vendored corpus sample', () => {
    const dir = path.resolve(__dirname, '../../../test/fixtures/page-corpus');
    const pages = fs.readdirSync(dir).filter((n) => fs.existsSync(path.join(dir, n, 'source.html')));
    expect(pages.length).toBe(32);
    for (const name of pages) {
      const html = fs.readFileSync(path.join(dir, name, 'source.html'), 'utf8');
      expect([name, visibleTextLengthOf(html)]).toEqual([name, visibleTextOf(html).length]);
    }
  });
});

describe('markerLookupOf', () => {
  const known = [
    ...new Set([...CAPTCHA_PROVIDERS, ...PROTECTION_PROVIDERS].flatMap((s) => s.markers).concat(CHALLENGE_MARKERS, SHELL_MARKERS)),
  ];

  it('answers exactly as includes() for every known marker and for others, whether or not a marker is on the page', () => {
    const page = fc
      .array(fc.oneof(fc.constantFrom(...known), fc.constantFrom(...known.map((m) => m.slice(1))), fc.string({ maxLength: 8 })), {
        maxLength: 12,
      })
      .map((parts) => parts.join(' ').toLowerCase());
    fc.assert(
      fc.property(page, fc.string({ maxLength: 5 }), (lower, other) => {
        const contains = markerLookupOf(lower);
        return [...known, other, 'recaptcha'].every((m) => contains(m) === lower.includes(m));
      }),
      { numRuns: 3000 },
    );
  });
});
