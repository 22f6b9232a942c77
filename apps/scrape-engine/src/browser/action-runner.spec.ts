import { evaluationSource, mergeCollected, puppeteerSelector } from './action-runner';
import { specType } from './network-recorder';

describe('browser action helpers', () => {
  it.each([
    ['document.title', 'document.title'],
    ['() => 1', '(() => 1)()'],
    ['async () => { return 2 }', '(async () => { return 2 })()'],
    ['async function () { return 3 }', '(async function () { return 3 })()'],
    ['function f() { return 4 }', '(function f() { return 4 })()'],
    ['x => x', '(x => x)()'],
    ['(a, b) => a', '((a, b) => a)()'],
    ['[1, 2].map((x) => x * 2)', '[1, 2].map((x) => x * 2)'],
  ])('evaluates %s as %s', (script, source) => {
    expect(evaluationSource(script)).toBe(source);
  });

  it('turns css:, xpath: and bare // selectors into puppeteer selectors', () => {
    expect(puppeteerSelector('css:#a > b')).toBe('#a > b');
    expect(puppeteerSelector('li.item')).toBe('li.item');
    expect(puppeteerSelector('xpath://a[@href]')).toBe('::-p-xpath(//a[@href])');
    expect(puppeteerSelector('//button')).toBe('::-p-xpath(//button)');
  });

  it('accumulates collected values across iterations', () => {
    let data = mergeCollected(null, { items: ['a', 'b'], title: 'Page 1' });
    data = mergeCollected(data, { items: ['c'], title: 'Page 2' });
    data = mergeCollected(data, { items: [], title: null, extra: 1 });
    expect(data).toEqual({ items: ['a', 'b', 'c'], title: ['Page 1', 'Page 2', null], extra: 1 });
  });

  it('maps DevTools resource types onto the 13 types of spec 2.6', () => {
    expect(['Document', 'XHR', 'Fetch', 'WebSocket', 'TextTrack', 'EventSource', 'Manifest'].map(specType)).toEqual([
      'document',
      'xhr',
      'fetch',
      'websocket',
      'texttrack',
      'eventsource',
      'manifest',
    ]);
    expect(['Prefetch', 'Ping', 'CSPViolationReport', 'Preflight', undefined].map(specType)).toEqual([
      'other',
      'other',
      'other',
      'other',
      'other',
    ]);
  });
});
