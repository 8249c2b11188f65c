'use strict';
// Converts a safetensors checkpoint into a GGUF file; which tensors, under which names and types, is the caller's
// (one per architecture, e.g. bert-to-gguf.js).
const { readSafetensors, tensorValues } = require('./safetensors');
const { ggufTensor, writeGguf } = require('./gguf-writer');

/**
 * @typedef {object} TensorRename
 * @property {string} from the tensor's name in the checkpoint
 * @property {string} to its name in the GGUF file
 */

/**
 * @typedef {object} ConversionPlan
 * @property {import('./gguf-writer').GgufMetadataEntry[]} metadata
 * @property {TensorRename[]} tensors what goes into the file, in this order; checkpoint tensors not named are left out
 * @property {(name: string, shape: number[]) => number} typeOf the GGML type to store a tensor as, by its GGUF name
 */

/**
 * @param {Buffer} checkpoint the bytes of a safetensors file
 * @param {ConversionPlan} plan
 * @returns {Buffer} the bytes of the GGUF file
 */
function safetensorsToGguf(checkpoint, { metadata, tensors, typeOf }) {
  const source = readSafetensors(checkpoint);
  const converted = tensors.map(({ from, to }) => {
    const tensor = source.get(from);
    if (!tensor) throw new Error(`tensor ${from} is missing from the checkpoint`);
    return ggufTensor(to, tensor.shape, tensorValues(tensor), typeOf(to, tensor.shape));
  });
  return writeGguf(metadata, converted);
}

module.exports = { safetensorsToGguf };
