import { sniffImageFormat } from './image-format';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));

function bmpHeaderStart(dibHeaderSize: number): Buffer {
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(dibHeaderSize, 14);
  return header;
}

describe('sniffImageFormat', () => {
  it.each([
    ['jpeg', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF')],
    ['png', bytes([0x89], 'PNG\r\n\x1a\n', [0, 0, 0, 13], 'IHDR')],
    ['gif', bytes('GIF89a', [1, 0, 1, 0])],
    ['gif', bytes('GIF87a', [1, 0, 1, 0])],
    ['webp', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 ')],
    ['tiff', bytes('II', [0x2a, 0], [8, 0, 0, 0])],
    ['tiff', bytes('MM', [0, 0x2a], [0, 0, 0, 8])],
    ['tiff', bytes('II', [0x2b, 0], [8, 0, 0, 0])],
    ['bmp', bmpHeaderStart(40)],
    ['bmp', bmpHeaderStart(124)],
  ])('recognises %s by its magic bytes', (format, input) => {
    expect(sniffImageFormat(input)).toBe(format);
  });

  it.each([
    ['a PDF', bytes('%PDF-1.7\n%âãÏÓ\n')],
    ['plain text', bytes('hello, this is not an image')],
    ['text that starts with "BM"', bytes('BMW is a car maker, not a bitmap header!')],
    ['a RIFF file that is not WEBP', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ')],
    ['an SVG', bytes('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['a truncated signature', bytes([0x89], 'PN')],
    ['nothing', Buffer.alloc(0)],
  ])('returns null for %s', (_name, input) => {
    expect(sniffImageFormat(input)).toBeNull();
  });
});
