import { ParsedPage } from '../formats/parsed-page';
import { InvalidSelectorError, parseSelector, SelectorExtractor } from './selector-extractor';

const PAGE = `<html><head><base href="https://example.com/shop/"></head><body>
  <h1 class="title">  Blue   Teapot </h1>
  <ul id="items"><li class="item"><a href="tea/1">Green tea</a></li><li class="item"><a href="/tea/2">Black  tea</a></li></ul>
  <img id="hero" src="img/hero.jpg" data-kind="photo">
</body></html>`;

describe(SelectorExtractor.name, () => {
  const extractor = new SelectorExtractor();
  const run = (specs: Parameters<SelectorExtractor['extract']>[1]) =>
    extractor.extract(new ParsedPage(PAGE, 'https://example.com/shop/teapot'), specs);

  it.each([
    ['h1.title', 'css', 'h1.title'],
    ['css:#items > li', 'css', '#items > li'],
    ['xpath://h1', 'xpath', '//h1'],
    ['//li/a/@href', 'xpath', '//li/a/@href'],
    ['(//li)[1]', 'xpath', '(//li)[1]'],
  ])('reads %s as %s', (selector, kind, expression) => {
    expect(parseSelector(selector)).toEqual({ kind, expression });
  });

  it('extracts text (trimmed, whitespace collapsed), lists and attributes with CSS', () => {
    expect(
      run({
        title: 'h1.title',
        names: { selector: 'css:li.item a', multiple: true },
        kind: { selector: '#hero', attribute: 'data-kind' },
        none: '.missing',
        nones: { selector: '.missing', multiple: true },
      }),
    ).toEqual({
      title: 'Blue Teapot',
      names: ['Green tea', 'Black tea'],
      kind: 'photo',
      none: null,
      nones: [],
    });
  });

  it('returns URL attributes absolute against the page base', () => {
    expect(run({ links: { selector: 'li a', multiple: true, attribute: 'href' }, hero: { selector: '#hero', attribute: 'src' } })).toEqual({
      links: ['https://example.com/shop/tea/1', 'https://example.com/tea/2'],
      hero: 'https://example.com/shop/img/hero.jpg',
    });
  });

  it('extracts with XPath: elements, attribute nodes and scalar results', () => {
    expect(
      run({
        title: '//h1',
        hrefs: { selector: 'xpath://li/a/@href', multiple: true },
        count: 'xpath:count(//li)',
        second: { selector: '(//li/a)[2]', attribute: 'href' },
      }),
    ).toEqual({
      title: 'Blue Teapot',
      hrefs: ['https://example.com/shop/tea/1', 'https://example.com/tea/2'],
      count: 2,
      second: 'https://example.com/tea/2',
    });
  });

  it.each([
    ['css:li[', 'CSS'],
    ['xpath://li[', 'XPATH'],
    ['//*[', 'XPATH'],
    ['css:', 'CSS'],
  ])('rejects the invalid selector %s before any fetch', (selector, kind) => {
    expect(() => extractor.assertValid({ broken: selector })).toThrow(InvalidSelectorError);
    expect(() => extractor.assertValid({ broken: selector })).toThrow(new RegExp(`extract\\.broken: .* not a valid ${kind} selector`));
  });
});
