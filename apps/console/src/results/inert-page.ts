/**
 * A scraped page made inert for display: nothing in it may run or load anything from another host
 * (the console's promise: no request to any host but the gateway). The iframe it goes into is
 * sandboxed without scripts; this removes what would still fetch — images, styles, frames, media,
 * links a click would follow — and keeps the text and the structure. Pictures already inline
 * (data: URLs) stay.
 */
const REMOVED_ELEMENTS =
  'script,noscript,template,iframe,frame,frameset,object,embed,applet,link,meta,base,style,form,video,audio,source,track,portal';
const URL_ATTRIBUTES = new Set([
  'src',
  'srcset',
  'href',
  'xlink:href',
  'background',
  'poster',
  'action',
  'formaction',
  'ping',
  'data',
  'lowsrc',
  'dynsrc',
  'longdesc',
  'cite',
  'manifest',
  'codebase',
  'archive',
  'usemap',
  'imagesrcset',
]);

function isInlineImage(element: Element, name: string, value: string): boolean {
  return name === 'src' && element.localName === 'img' && /^data:image\/(png|jpe?g|gif|webp|avif);/i.test(value.trim());
}

export function inertPage(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const element of Array.from(doc.querySelectorAll(REMOVED_ELEMENTS))) element.remove();
  for (const element of Array.from(doc.querySelectorAll('*'))) {
    for (const attribute of Array.from(element.attributes)) {
      const name = attribute.name.toLowerCase();
      if (name.startsWith('on')) {
        element.removeAttribute(attribute.name);
      } else if (URL_ATTRIBUTES.has(name) && !isInlineImage(element, name, attribute.value)) {
        // Where a link or a picture pointed stays readable on hover, without being fetched.
        if (name === 'href' || name === 'src') element.setAttribute('title', attribute.value.slice(0, 500));
        element.removeAttribute(attribute.name);
      } else if (name === 'style' && /url\s*\(|@import|expression\s*\(/i.test(attribute.value)) {
        element.setAttribute('style', attribute.value.replace(/url\s*\([^)]*\)|@import[^;]*;?|expression\s*\([^)]*\)/gi, 'none'));
      }
    }
  }
  return `<!doctype html><html lang="${doc.documentElement.getAttribute('lang') ?? ''}"><head><meta charset="utf-8"><title>${escapeText(
    doc.title,
  )}</title></head>${doc.body ? doc.body.outerHTML : '<body></body>'}</html>`;
}

function escapeText(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}
