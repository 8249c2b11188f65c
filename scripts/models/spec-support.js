'use strict';
// Fixtures for the model-conversion specs: safetensors files built from literal values, and GGUF files read back
// with @huggingface/gguf (not the writer under test), whose tensor bytes are decoded here from the GGUF spec.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { gguf, GGMLQuantizationType } = require('@huggingface/gguf');

/**
 * @typedef {object} FixtureTensor
 * @property {'F32' | 'F16' | 'I64'} dtype
 * @property {number[]} shape
 * @property {number[]} data F32: the values; F16: binary16 bit patterns; I64: integers
 */

/**
 * A safetensors file: little-endian u64 header length, the JSON header padded with spaces to 8 bytes, the data.
 * @param {Record<string, FixtureTensor>} tensors
 * @returns {Buffer}
 */
function safetensorsFile(tensors) {
  const header = { __metadata__: { format: 'pt' } };
  const chunks = [];
  let offset = 0;
  for (const [name, { dtype, shape, data }] of Object.entries(tensors)) {
    const bytes = encode(dtype, data);
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes.length] };
    chunks.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([length, Buffer.from(json), ...chunks]);
}

function encode(dtype, data) {
  if (dtype === 'F32') return Buffer.from(new Float32Array(data).buffer);
  if (dtype === 'F16') return Buffer.from(new Uint16Array(data).buffer);
  if (dtype === 'I64') return Buffer.from(new BigInt64Array(data.map(BigInt)).buffer);
  throw new Error(`no fixture encoding for ${dtype}`);
}

/**
 * @typedef {object} ReadTensor
 * @property {number[]} shape as GGUF stores it, fastest-varying dimension first
 * @property {'F32' | 'F16'} type
 * @property {number[]} values
 * @property {number} offset of the data from the start of the data section
 */

/**
 * Parses GGUF bytes with @huggingface/gguf (which reads local files only, hence the temporary file).
 * @param {Buffer} bytes
 */
async function readGguf(bytes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gguf-spec-'));
  const file = path.join(dir, 'model.gguf');
  try {
    fs.writeFileSync(file, bytes);
    const parsed = await gguf(file, { allowLocalFile: true, typedMetadata: true });
    /** @type {Map<string, ReadTensor>} */
    const tensors = new Map();
    for (const info of parsed.tensorInfos) {
      const start = Number(parsed.tensorDataOffset + info.offset);
      const count = info.shape.reduce((n, dimension) => n * Number(dimension), 1);
      tensors.set(info.name, {
        shape: info.shape.map(Number),
        type: typeName(info.dtype),
        values: decode(bytes, start, count, info.dtype),
        offset: Number(info.offset),
      });
    }
    return {
      version: parsed.metadata.version,
      metadata: parsed.typedMetadata,
      tensors,
      dataOffset: Number(parsed.tensorDataOffset),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function typeName(dtype) {
  if (dtype === GGMLQuantizationType.F32) return 'F32';
  if (dtype === GGMLQuantizationType.F16) return 'F16';
  throw new Error(`unexpected GGML type ${dtype}`);
}

function decode(bytes, start, count, dtype) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = [];
  for (let i = 0; i < count; i++) {
    values.push(
      dtype === GGMLQuantizationType.F32
        ? view.getFloat32(start + i * 4, true)
        : half(view.getUint16(start + i * 2, true)),
    );
  }
  return values;
}

/** binary16: 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits; exponent 0 is subnormal, 31 is inf/NaN. */
function half(bits) {
  const sign = bits >> 15 ? -1 : 1;
  const exponent = (bits >> 10) & 31;
  const fraction = bits & 1023;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return exponent === 0 ? sign * (fraction / 1024) * 2 ** -14 : sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

module.exports = { safetensorsFile, readGguf };
