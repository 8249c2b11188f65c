'use strict';
// Reads safetensors files (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length, a JSON
// header naming each tensor's dtype, shape and byte range, then the tensors' bytes.
const { decodeFloat16 } = require('./float16');

/** Bytes per element of the dtypes a header may name; only F32 and F16 are ever decoded. */
const DTYPE_SIZE = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 };

/**
 * @typedef {object} SafetensorsTensor
 * @property {string} dtype e.g. 'F32', 'F16', 'I64'
 * @property {number[]} shape row-major, last dimension fastest
 * @property {Buffer} bytes the tensor's data, a view into the file's buffer
 */

/**
 * Every tensor of a safetensors file, by name, without decoding any: a checkpoint may hold tensors of other types
 * (BERT's I64 position ids) that no conversion reads.
 * @param {Buffer} file
 * @returns {Map<string, SafetensorsTensor>}
 */
function readSafetensors(file) {
  if (file.length < 8) throw new Error('not a safetensors file: shorter than its header length');
  const headerLength = Number(file.readBigUInt64LE(0));
  const dataStart = 8 + headerLength;
  if (dataStart > file.length)
    throw new Error(`safetensors header of ${headerLength} bytes runs past the end of the file`);
  const header = JSON.parse(file.toString('utf8', 8, dataStart));
  const tensors = new Map();
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = info.data_offsets;
    if (!(begin >= 0 && begin <= end && dataStart + end <= file.length))
      throw new Error(`safetensors tensor ${name}: data_offsets ${begin}..${end} lie outside the file`);
    const size = DTYPE_SIZE[info.dtype];
    const expected = size === undefined ? undefined : size * elementCount(info.shape);
    if (expected !== undefined && end - begin !== expected)
      throw new Error(`safetensors tensor ${name}: ${end - begin} bytes for ${info.dtype}[${info.shape}]`);
    tensors.set(name, {
      dtype: info.dtype,
      shape: info.shape,
      bytes: file.subarray(dataStart + begin, dataStart + end),
    });
  }
  return tensors;
}

/**
 * A floating-point tensor's values as float32 (F16 widens exactly).
 * @param {SafetensorsTensor} tensor
 * @returns {Float32Array}
 */
function tensorValues(tensor) {
  if (tensor.dtype === 'F16') return decodeFloat16(tensor.bytes);
  if (tensor.dtype !== 'F32')
    throw new Error(`cannot convert a ${tensor.dtype} tensor; only F32 and F16 are supported`);
  // Copied: the tensor may not start 4-byte aligned, which a Float32Array view needs.
  const values = new Float32Array(tensor.bytes.length / 4);
  new Uint8Array(values.buffer).set(tensor.bytes);
  return values;
}

/** @param {number[]} shape */
const elementCount = (shape) => shape.reduce((count, dimension) => count * dimension, 1);

module.exports = { readSafetensors, tensorValues, elementCount };
