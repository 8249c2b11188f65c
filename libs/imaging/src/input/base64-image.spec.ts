import { decodeBase64Image, isImageUrl } from './base64-image';
import { ImageInputError } from './image-input-error';
import { MAX_IMAGE_BYTES } from './image-limits';

const payload = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);

describe('decodeBase64Image', () => {
  it('decodes raw base64, padded or not', () => {
    expect(decodeBase64Image(payload.toString('base64'))).toEqual(payload);
    expect(decodeBase64Image(payload.toString('base64').replace(/=+$/, ''))).toEqual(payload);
  });

  it('decodes a base64 data URI whatever media type it claims', () => {
    expect(decodeBase64Image(`data:image/png;base64,${payload.toString('base64')}`)).toEqual(payload);
    expect(decodeBase64Image(`DATA:text/plain;charset=utf-8;BASE64,${payload.toString('base64')}`)).toEqual(payload);
  });

  it.each([
    ['a character outside the alphabet', 'iVBORw0K*GgoAAAA'],
    ['URL-safe characters', 'iVBORw0K-GgoA_AAA'],
    ['whitespace', 'iVBORw0K GgoAAAA'],
    ['an impossible length', 'iVBORw0KG'],
    ['padding in the middle', 'iVBO=w0KGgoAAAA'],
    ['padding on a short group', 'iVBORw0=='],
  ])('rejects %s', (_name, value) => {
    expect(() => decodeBase64Image(value)).toThrow(new ImageInputError('image is not valid base64'));
  });

  it('rejects a data URI that is not base64-encoded', () => {
    expect(() => decodeBase64Image('data:image/svg+xml,<svg/>')).toThrow('image data URI must be base64-encoded');
  });

  it('rejects other URL schemes with a message that names what is accepted', () => {
    expect(() => decodeBase64Image('ftp://example.com/a.png')).toThrow(
      'image must be an http(s) URL, a data URI or base64',
    );
    expect(() => decodeBase64Image('file:///etc/passwd')).toThrow('image must be an http(s) URL, a data URI or base64');
  });

  it('rejects an empty image', () => {
    expect(() => decodeBase64Image('')).toThrow('image is empty');
    expect(() => decodeBase64Image('data:image/png;base64,')).toThrow('image is empty');
  });

  it('accepts exactly 10 MB', () => {
    expect(decodeBase64Image(Buffer.alloc(MAX_IMAGE_BYTES, 7).toString('base64'))).toHaveLength(MAX_IMAGE_BYTES);
  });

  it('rejects more than any format may be (a BMP, 30 MB) from the string length, without decoding', () => {
    const from = jest.spyOn(Buffer, 'from');
    try {
      expect(() => decodeBase64Image('A'.repeat(50 * 1024 * 1024))).toThrow('image is larger than 30 MB');
      expect(() => decodeBase64Image(`data:image/png;base64,${'A'.repeat(42_000_000)}`)).toThrow(
        'image is larger than 30 MB',
      );
      expect(from).not.toHaveBeenCalled();
    } finally {
      from.mockRestore();
    }
  });

  it('throws errors the api reports as 400 InvalidImage', () => {
    const error = (() => {
      try {
        decodeBase64Image('%%%');
      } catch (caught) {
        return caught as ImageInputError;
      }
    })();
    expect(error).toBeInstanceOf(ImageInputError);
    expect(error).toMatchObject({ code: 'InvalidImage', status: 400 });
  });
});

describe('isImageUrl', () => {
  it.each([
    ['https://example.com/a.png', true],
    ['HTTP://example.com/a.png', true],
    ['data:image/png;base64,iVBORw0KGgo=', false],
    ['iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB', false],
    ['ftp://example.com/a.png', false],
    ['https:/example.com', false],
  ])('%s → %s', (value, expected) => {
    expect(isImageUrl(value)).toBe(expected);
  });
});
