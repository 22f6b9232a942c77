/**
 * Where a page's <script>, <style>, <noscript>, <title> and <textarea> really end, as a browser's
 * tokenizer decides (title and textarea are RCDATA: text up to their end tag, entities decoded).
 *
 * node-html-parser ends such an element at the first literal `</script>` written in the same case
 * as its start tag. Browsers follow the HTML tokenizer's script-data states instead: inside
 * `<!-- … <script> … -->` a `</script>` does not end the script, `</SCRIPT >` does, and so on.
 * Where the two disagree the page falls apart: script text spills into the document as visible
 * text, or (when the piece is re-parsed by a spec parser) the rest of the page is swallowed as
 * script. `alignRawText` rewrites only the elements where node-html-parser would go wrong so that
 * it ends them where a browser does (and drops what follows a comment that is never closed, which
 * a browser does not show); every other byte of the page is left as it was, and a page with
 * nothing to fix is returned as the same string.
 */

// Elements whose content node-html-parser keeps as raw text (the parse options of ParsedPage).
type RawTextElement = 'script' | 'style' | 'noscript' | 'title' | 'textarea';

// A comment, or a raw-text element's start tag (quoted attribute values may hold `>`).
const OPENINGS = /<!--|<(script|style|noscript|title|textarea)(?=[\s/>])(?:[^>"']|"[^"]*"|'[^']*')*>/giy;
// Any other tag is stepped over whole: `<!--` or `<script>` inside an attribute value is not markup.
const NEXT_OPENING = /<!--|<[A-Za-z]/g;
const OTHER_TAG = /<[A-Za-z](?:[^>"']|"[^"]*"|'[^']*')*>/y;
const SCRIPT_TOKENS = /<!--|-->|<\/script(?=[\s/>])|<script(?=[\s/>])/gi;

export function alignRawText(html: string): string {
  let out: string[] | null = null;
  let copiedUpTo = 0;
  NEXT_OPENING.lastIndex = 0;
  for (let found = NEXT_OPENING.exec(html); found; found = NEXT_OPENING.exec(html)) {
    const at = found.index;
    if (html.startsWith('<!--', at)) {
      // `<!-->` and `<!--->` are whole (empty) comments to a browser; node-html-parser would look for a later `-->`.
      const abrupt = html.startsWith('>', at + 4) ? 5 : html.startsWith('->', at + 4) ? 6 : 0;
      if (abrupt) {
        (out ??= []).push(html.slice(copiedUpTo, at), '<!---->');
        copiedUpTo = NEXT_OPENING.lastIndex = at + abrupt;
        continue;
      }
      const end = html.indexOf('-->', at + 4);
      if (end < 0) {
        // A comment never closed runs to the end of the document in a browser: nothing after it is shown.
        (out ??= []).push(html.slice(copiedUpTo, at));
        copiedUpTo = html.length;
        break;
      }
      NEXT_OPENING.lastIndex = end + 3;
      continue;
    }
    OPENINGS.lastIndex = at;
    const start = OPENINGS.exec(html);
    if (!start || !start[1]) {
      OTHER_TAG.lastIndex = at;
      NEXT_OPENING.lastIndex = OTHER_TAG.test(html) ? OTHER_TAG.lastIndex : at + 1;
      continue;
    }
    const written = start[1];
    const name = written.toLowerCase() as RawTextElement;
    const contentStart = at + start[0].length;
    const contentEnd = name === 'script' ? scriptDataEnd(html, contentStart) : rawTextEnd(html, contentStart, name);
    const closeEnd = contentEnd < html.length ? html.indexOf('>', contentEnd) : -1;
    const after = closeEnd < 0 ? html.length : closeEnd + 1;
    const expectedClose = `</${written}>`;
    const parserWouldEnd = html.indexOf(expectedClose, contentStart);
    const agrees = written === name && parserWouldEnd === contentEnd && html.startsWith(expectedClose, contentEnd);
    if (!agrees) {
      out ??= [];
      // Only a script can hold its own end tag (inside an escape); node-html-parser must not end it there. Other
      // elements end at the first one, and title/textarea text is shown: it stays as written.
      const content =
        name === 'script'
          ? html.slice(contentStart, contentEnd).replace(/<\/script/gi, '<\\/script')
          : html.slice(contentStart, contentEnd);
      out.push(html.slice(copiedUpTo, at), `<${name}`, start[0].slice(1 + written.length), content, `</${name}>`);
      copiedUpTo = after;
    }
    NEXT_OPENING.lastIndex = after;
  }
  if (!out) return html;
  if (copiedUpTo < html.length) out.push(html.slice(copiedUpTo));
  return out.join('');
}

/**
 * The index of the `</script` that ends a script whose content starts at `from`, per the HTML
 * tokenizer's script data, escaped and double-escaped states; the input's length when none does.
 */
export function scriptDataEnd(html: string, from: number): number {
  let state: 'data' | 'escaped' | 'double' = 'data';
  SCRIPT_TOKENS.lastIndex = from;
  for (let token = SCRIPT_TOKENS.exec(html); token; token = SCRIPT_TOKENS.exec(html)) {
    const text = token[0];
    if (text === '<!--') {
      if (state !== 'data') {
        // Only `<!` is spent: its dashes may be the start of the `-->` that ends the escape.
        SCRIPT_TOKENS.lastIndex = token.index + 2;
        continue;
      }
      // `<!--` followed by dashes and `>` opens and closes the escape at once (escaped dash dash state).
      let i = token.index + 4;
      while (html[i] === '-') i += 1;
      if (html[i] === '>') SCRIPT_TOKENS.lastIndex = i + 1;
      else state = 'escaped';
    } else if (text === '-->') {
      if (state !== 'data') state = 'data';
    } else if (text[1] === '/') {
      if (state === 'double') state = 'escaped';
      else return token.index;
    } else if (state === 'escaped') {
      state = 'double';
    }
  }
  return html.length;
}

/** A <style>, <noscript>, <title> or <textarea> ends at the first `</style` (…) in any case (raw text and RCDATA states). */
function rawTextEnd(html: string, from: number, name: RawTextElement): number {
  const pattern = new RegExp(`</${name}(?=[\\s/>])`, 'gi');
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? html.length;
}
