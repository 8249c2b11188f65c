'use strict';
// Writes GGUF v3 files, the format llama.cpp (node-llama-cpp) loads: a header, typed key/values, tensor infos, then
// each tensor's data aligned (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md).
const { encodeFloat16 } = require('./float16');
const { elementCount } = require('./safetensors');

const GGUF_VERSION = 3;
const GGUF_VALUE_TYPE = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 };
const GGML_TYPE = { F32: 0, F16: 1 };
// GGUF's default; a file that keeps it needs no general.alignment key.
const ALIGNMENT = 32;

/**
 * One metadata key/value and the GGUF type to write it as: 'strings' and 'i32s' are arrays of string and int32.
 * @typedef {[key: string, type: 'string' | 'u32' | 'f32' | 'bool' | 'strings' | 'i32s', value: any]} GgufMetadataEntry
 */

/**
 * @typedef {object} GgufTensor
 * @property {string} name
 * @property {number[]} dims fastest-varying first (GGUF's ne[]), the reverse of a row-major shape
 * @property {number} type a GGML_TYPE
 * @property {Buffer} data
 */

/**
 * A tensor for the file from row-major float32 values, stored as `type`.
 * @param {string} name
 * @param {number[]} shape row-major (safetensors, numpy)
 * @param {Float32Array} values
 * @param {number} type GGML_TYPE.F32 or GGML_TYPE.F16
 * @returns {GgufTensor}
 */
function ggufTensor(name, shape, values, type) {
  if (values.length !== elementCount(shape))
    throw new Error(`tensor ${name}: ${values.length} values for shape [${shape}]`);
  if (type !== GGML_TYPE.F32 && type !== GGML_TYPE.F16)
    throw new Error(`tensor ${name}: GGML type ${type} is not supported`);
  const data =
    type === GGML_TYPE.F16 ? encodeFloat16(values) : Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  return { name, dims: [...shape].reverse(), type, data };
}

/**
 * The bytes of a GGUF file holding `metadata` and `tensors`, in the order given.
 * @param {GgufMetadataEntry[]} metadata
 * @param {GgufTensor[]} tensors
 * @returns {Buffer}
 */
function writeGguf(metadata, tensors) {
  /** @type {Buffer[]} */
  const parts = [];
  const u32 = (value) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    parts.push(b);
  };
  const i32 = (value) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    parts.push(b);
  };
  const u64 = (value) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    parts.push(b);
  };
  const f32 = (value) => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    parts.push(b);
  };
  const str = (value) => {
    const b = Buffer.from(value, 'utf8');
    u64(b.length);
    parts.push(b);
  };

  parts.push(Buffer.from('GGUF', 'ascii'));
  u32(GGUF_VERSION);
  u64(tensors.length);
  u64(metadata.length);
  for (const [key, type, value] of metadata) {
    str(key);
    if (type === 'string') {
      u32(GGUF_VALUE_TYPE.STRING);
      str(value);
    } else if (type === 'u32') {
      u32(GGUF_VALUE_TYPE.UINT32);
      u32(value);
    } else if (type === 'f32') {
      u32(GGUF_VALUE_TYPE.FLOAT32);
      f32(value);
    } else if (type === 'bool') {
      u32(GGUF_VALUE_TYPE.BOOL);
      parts.push(Buffer.from([value ? 1 : 0]));
    } else if (type === 'strings') {
      u32(GGUF_VALUE_TYPE.ARRAY);
      u32(GGUF_VALUE_TYPE.STRING);
      u64(value.length);
      value.forEach(str);
    } else if (type === 'i32s') {
      u32(GGUF_VALUE_TYPE.ARRAY);
      u32(GGUF_VALUE_TYPE.INT32);
      u64(value.length);
      value.forEach(i32);
    } else throw new Error(`${key}: unknown GGUF value type ${type}`);
  }
  let offset = 0;
  for (const tensor of tensors) {
    str(tensor.name);
    u32(tensor.dims.length);
    tensor.dims.forEach(u64);
    u32(tensor.type);
    u64(offset);
    offset += align(tensor.data.length);
  }
  const headerLength = parts.reduce((sum, part) => sum + part.length, 0);
  parts.push(Buffer.alloc(align(headerLength) - headerLength));
  for (const tensor of tensors) {
    parts.push(tensor.data);
    parts.push(Buffer.alloc(align(tensor.data.length) - tensor.data.length));
  }
  return Buffer.concat(parts);
}

const align = (n) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

module.exports = { writeGguf, ggufTensor, GGML_TYPE };
