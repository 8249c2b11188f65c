'use strict';
// IEEE 754 half precision (binary16), the storage type of the F16 tensors in safetensors and GGUF files.

const scratchFloat = new Float32Array(1);
const scratchBits = new Uint32Array(scratchFloat.buffer);

/**
 * The binary16 bit pattern nearest to `value`, ties to even (numpy's float16 cast, which llama.cpp's converter uses).
 * @param {number} value
 * @returns {number} 16-bit pattern
 */
function float32ToFloat16Bits(value) {
  scratchFloat[0] = value;
  const bits = scratchBits[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const halfExponent = exponent - 112;
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  if (halfExponent <= 0) {
    if (halfExponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - halfExponent;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && half & 1)) half++;
    return sign | half;
  }
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  let half = (halfExponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

/**
 * The value of a binary16 bit pattern; exact, since every half fits in a float32.
 * @param {number} bits
 * @returns {number}
 */
function float16BitsToFloat32(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/**
 * @param {Float32Array} values
 * @returns {Buffer} little-endian binary16, two bytes a value
 */
function encodeFloat16(values) {
  const out = Buffer.alloc(values.length * 2);
  for (let i = 0; i < values.length; i++) out.writeUInt16LE(float32ToFloat16Bits(values[i]), i * 2);
  return out;
}

/**
 * @param {Buffer} bytes little-endian binary16
 * @returns {Float32Array}
 */
function decodeFloat16(bytes) {
  if (bytes.length % 2 !== 0) throw new Error(`float16 data of ${bytes.length} bytes is not a whole number of values`);
  const out = new Float32Array(bytes.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = float16BitsToFloat32(bytes.readUInt16LE(i * 2));
  return out;
}

module.exports = { float32ToFloat16Bits, float16BitsToFloat32, encodeFloat16, decodeFloat16 };
