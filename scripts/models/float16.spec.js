'use strict';
const { decodeFloat16, encodeFloat16, float16BitsToFloat32, float32ToFloat16Bits } = require('./float16');

describe('float32ToFloat16Bits', () => {
  it.each([
    ['one', 1, 0x3c00],
    ['minus two', -2, 0xc000],
    ['negative zero', -0, 0x8000],
    ['the largest half', 65504, 0x7bff],
    ['0.1, rounded to the nearest half', 0.1, 0x2e66],
    ['a tie, to the even neighbour below', 1 + 2 ** -11, 0x3c00],
    ['a tie, to the even neighbour above', 1 + 3 * 2 ** -11, 0x3c02],
    ['a value that rounds up past the largest half', 65520, 0x7c00],
    ['the smallest subnormal', 2 ** -24, 0x0001],
    ['half the smallest subnormal, a tie to even zero', 2 ** -25, 0x0000],
    ['three halves of the smallest subnormal, a tie to even', 3 * 2 ** -25, 0x0002],
    ['the largest subnormal', 1023 * 2 ** -24, 0x03ff],
    ['a value too small for any half', 1e-10, 0x0000],
    ['infinity', Infinity, 0x7c00],
    ['minus infinity', -Infinity, 0xfc00],
    ['NaN', NaN, 0x7e00],
  ])('encodes %s', (_what, value, bits) => {
    expect(float32ToFloat16Bits(value)).toBe(bits);
  });
});

describe('float16BitsToFloat32', () => {
  it('decodes normals, subnormals, zeros and infinities exactly', () => {
    expect([0x3c00, 0xc000, 0x7bff, 0x0001, 0x03ff, 0x8000, 0x7c00, 0xfc00].map(float16BitsToFloat32)).toEqual([
      1,
      -2,
      65504,
      2 ** -24,
      1023 * 2 ** -24,
      -0,
      Infinity,
      -Infinity,
    ]);
    expect(float16BitsToFloat32(0x7e00)).toBeNaN();
  });

  it('round-trips every half that is not NaN', () => {
    for (let bits = 0; bits <= 0xffff; bits++) {
      const isNaN = (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;
      if (!isNaN && float32ToFloat16Bits(float16BitsToFloat32(bits)) !== bits)
        throw new Error(`0x${bits.toString(16)} does not round-trip`);
    }
  });
});

describe('encodeFloat16 / decodeFloat16', () => {
  it('writes two little-endian bytes a value and reads them back', () => {
    const bytes = encodeFloat16(new Float32Array([1, -2, 0.5]));
    expect([...bytes]).toEqual([0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38]);
    expect([...decodeFloat16(bytes)]).toEqual([1, -2, 0.5]);
  });

  it('refuses an odd number of bytes', () => {
    expect(() => decodeFloat16(Buffer.alloc(3))).toThrow('not a whole number of values');
  });
});
