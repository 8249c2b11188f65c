'use strict';
const { GGUFValueType } = require('@huggingface/gguf');
const { GGML_TYPE } = require('./gguf-writer');
const { safetensorsToGguf } = require('./safetensors-to-gguf');
const { readGguf, safetensorsFile } = require('./spec-support');

// Row-major [2, 3] float32 values; 0.1 is not a half, so storing it as F16 rounds it.
const DENSE = [1, -2, 0.5, 65504, 0.1, 2 ** -24];
// binary16 bit patterns of 1, -2, 0.5, 65504 (largest half), 2^-24 (smallest subnormal), -0.
const EMBEDDING_BITS = [0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001, 0x8000];
const EMBEDDING = [1, -2, 0.5, 65504, 2 ** -24, -0];

const checkpoint = () =>
  safetensorsFile({
    'dense.weight': { dtype: 'F32', shape: [2, 3], data: DENSE },
    'norm.bias': { dtype: 'F32', shape: [3], data: [0.25, -1.5, 0.1] },
    'embeddings.weight': { dtype: 'F16', shape: [3, 2], data: EMBEDDING_BITS },
    // Never named in a plan, so never decoded (BERT checkpoints carry such buffers).
    position_ids: { dtype: 'I64', shape: [1, 4], data: [0, 1, 2, 3] },
  });

/** @type {import('./gguf-writer').GgufMetadataEntry[]} */
const metadata = [
  ['general.architecture', 'string', 'test'],
  ['test.block_count', 'u32', 7],
  ['test.layer_norm_epsilon', 'f32', 1e-12],
  ['test.causal', 'bool', false],
  ['tokenizer.ggml.tokens', 'strings', ['[CLS]', '\u2581hello', 'lo']],
  ['tokenizer.ggml.token_type', 'i32s', [3, 1, -1]],
];

const plan = {
  metadata,
  tensors: [
    { from: 'dense.weight', to: 'dense_f16.weight' },
    { from: 'norm.bias', to: 'norm.bias' },
    { from: 'embeddings.weight', to: 'embd_f16.weight' },
    { from: 'embeddings.weight', to: 'embd_f32.weight' },
  ],
  typeOf: (name) => (name.includes('_f16') ? GGML_TYPE.F16 : GGML_TYPE.F32),
};

describe('safetensorsToGguf', () => {
  it('writes a GGUF v3 file whose metadata keys, types and values an independent reader reads back', async () => {
    const file = await readGguf(safetensorsToGguf(checkpoint(), plan));

    expect(file.version).toBe(3);
    const { tensor_count, kv_count } = file.metadata;
    // The reader adds the header's own fields to the metadata; the rest are the keys the writer was given.
    const keys = Object.fromEntries(
      Object.entries(file.metadata).filter(([key]) => !['version', 'tensor_count', 'kv_count'].includes(key)),
    );
    expect(tensor_count.value).toBe(4n);
    expect(kv_count.value).toBe(6n);
    expect(Object.keys(keys)).toEqual(metadata.map(([key]) => key));
    expect(keys['general.architecture']).toEqual({ type: GGUFValueType.STRING, value: 'test' });
    expect(keys['test.block_count']).toEqual({ type: GGUFValueType.UINT32, value: 7 });
    expect(keys['test.layer_norm_epsilon']).toEqual({ type: GGUFValueType.FLOAT32, value: Math.fround(1e-12) });
    expect(keys['test.causal']).toEqual({ type: GGUFValueType.BOOL, value: false });
    expect(keys['tokenizer.ggml.tokens']).toEqual({
      type: GGUFValueType.ARRAY,
      subType: GGUFValueType.STRING,
      value: ['[CLS]', '\u2581hello', 'lo'],
    });
    expect(keys['tokenizer.ggml.token_type']).toEqual({
      type: GGUFValueType.ARRAY,
      subType: GGUFValueType.INT32,
      value: [3, 1, -1],
    });
  });

  it('writes the named tensors in plan order, with GGUF shapes (fastest dimension first), types and values', async () => {
    const { tensors } = await readGguf(safetensorsToGguf(checkpoint(), plan));

    expect([...tensors.keys()]).toEqual(['dense_f16.weight', 'norm.bias', 'embd_f16.weight', 'embd_f32.weight']);
    expect(tensors.get('dense_f16.weight')).toMatchObject({
      shape: [3, 2],
      type: 'F16',
      values: [1, -2, 0.5, 65504, 0.0999755859375, 2 ** -24],
    });
    expect(tensors.get('norm.bias')).toMatchObject({ shape: [3], type: 'F32', values: [0.25, -1.5, Math.fround(0.1)] });
    expect(tensors.get('embd_f16.weight')).toMatchObject({ shape: [2, 3], type: 'F16', values: EMBEDDING });
    expect(tensors.get('embd_f32.weight')).toMatchObject({ shape: [2, 3], type: 'F32', values: EMBEDDING });
    expect(Object.is(tensors.get('embd_f32.weight').values[5], -0)).toBe(true);
  });

  it('starts the data section and every tensor on a 32-byte boundary', async () => {
    const { tensors, dataOffset } = await readGguf(safetensorsToGguf(checkpoint(), plan));

    expect(dataOffset % 32).toBe(0);
    expect([...tensors.values()].map((tensor) => tensor.offset)).toEqual([0, 32, 64, 96]);
  });

  it('refuses a plan that names a tensor the checkpoint does not have', () => {
    const missing = { ...plan, tensors: [{ from: 'pooler.dense.weight', to: 'pooler.weight' }] };
    expect(() => safetensorsToGguf(checkpoint(), missing)).toThrow(
      'tensor pooler.dense.weight is missing from the checkpoint',
    );
  });

  it('refuses to convert a tensor that is not floating point', () => {
    const integers = { ...plan, tensors: [{ from: 'position_ids', to: 'position_ids' }] };
    expect(() => safetensorsToGguf(checkpoint(), integers)).toThrow('cannot convert a I64 tensor');
  });

  it('refuses a safetensors file whose tensor data lies outside the file', () => {
    const truncated = checkpoint().subarray(0, -8);
    expect(() => safetensorsToGguf(truncated, plan)).toThrow('lie outside the file');
  });
});
