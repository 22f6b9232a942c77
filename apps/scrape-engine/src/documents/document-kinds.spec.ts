import { documentKindOf } from './document-kinds';

const pdf = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj');
const html = Buffer.from('<!doctype html><html><body>%PDF- in prose</body></html>');

describe('documentKindOf', () => {
  it.each([
    ['a named type', 'application/pdf; charset=binary', Buffer.from('whatever'), 'https://x.test/file', 'pdf'],
    ['octet-stream with the magic bytes', 'application/octet-stream', pdf, 'https://x.test/download?id=3', 'pdf'],
    ['no type, the magic bytes after junk', null, Buffer.concat([Buffer.from('\r\n\r\n'), pdf]), 'https://x.test/a', 'pdf'],
    ['no type and no magic, a .pdf URL', null, Buffer.from('garbage'), 'https://x.test/files/report.PDF', 'pdf'],
    ['octet-stream and a .pdf URL', 'application/octet-stream', Buffer.from('garbage'), 'https://x.test/report.pdf', 'pdf'],
    ['an HTML page that mentions %PDF-', 'text/html', html, 'https://x.test/report.pdf', null],
    ['an image named .pdf', 'image/png', Buffer.from([0x89, 0x50]), 'https://x.test/report.pdf', null],
    ['plain bytes', 'application/octet-stream', Buffer.from('zip?'), 'https://x.test/archive', null],
  ])('%s', (_, type, body, url, expected) => {
    expect(documentKindOf(type, body, url)).toBe(expected);
  });
});
