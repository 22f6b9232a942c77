import { MarkdownConverter } from './markdown-converter';
import { ParsedPage } from './parsed-page';

describe(MarkdownConverter.name, () => {
  const convert = (html: string, url = 'https://shop.example.com/catalog/page.html') => new MarkdownConverter().convert(new ParsedPage(html, url)).markdown;

  it('renders GFM tables', () => {
    const md = convert('<table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody><tr><td>Tea</td><td>3</td></tr><tr><td>Coffee</td><td>4</td></tr></tbody></table>');
    expect(md).toBe('| Name | Price |\n| --- | --- |\n| Tea | 3 |\n| Coffee | 4 |');
  });

  it('renders fenced code blocks with their language', () => {
    const md = convert('<pre><code class="language-ts">const a = 1;\nconst b = a * 2;</code></pre>');
    expect(md).toBe('```ts\nconst a = 1;\nconst b = a * 2;\n```');
  });

  it('renders nested lists with indentation', () => {
    const md = convert('<ul><li>One<ul><li>One.a</li><li>One.b<ol><li>deep</li></ol></li></ul></li><li>Two</li></ul>');
    const lines = md.split('\n');
    expect(lines[0]).toMatch(/^- +One$/);
    expect(lines.find((l) => l.includes('One.a'))).toMatch(/^ {2,}- +One\.a$/);
    expect(lines.find((l) => l.includes('deep'))).toMatch(/^ {4,}1\. +deep$/);
    expect(lines[lines.length - 1]).toMatch(/^- +Two$/);
  });

  it('makes links and images absolute, honouring <base href>', () => {
    expect(convert('<a href="../about">About</a> <img src="/logo.png" alt="Logo">')).toBe('[About](https://shop.example.com/about) ![Logo](https://shop.example.com/logo.png)');
    expect(convert('<html><head><base href="https://cdn.example.net/assets/"></head><body><a href="x.html">X</a></body></html>')).toBe('[X](https://cdn.example.net/assets/x.html)');
  });

  it('drops scripts, styles and the head', () => {
    expect(convert('<html><head><title>T</title><style>p{}</style></head><body><script>alert(1)</script><h1>Title</h1><p>Text <del>old</del></p></body></html>')).toBe('# Title\n\nText ~old~');
  });
});
