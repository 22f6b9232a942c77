import { detectContentType } from './content-type-sniffer';

describe(detectContentType.name, () => {
  it.each([
    ['application/pdf; charset=binary', '%PDF-1.7', 'application/pdf'],
    ['application/octet-stream', '%PDF-1.4', 'application/pdf'],
    [null, '\x89PNG\r\n', 'image/png'],
    [null, '\xff\xd8\xff\xe0', 'image/jpeg'],
    [null, 'PK\x03\x04', 'application/zip'],
    [null, 'RIFF\x00\x00\x00\x00WEBPVP8 ', 'image/webp'],
    ['text/csv', 'a,b', 'text/csv'],
    [null, 'plain words', null],
  ])('header %p with body %p is %p', (header, body, expected) => {
    expect(detectContentType(header, Buffer.from(body, 'latin1'))).toBe(expected);
  });
});
