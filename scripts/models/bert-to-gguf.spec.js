'use strict';
const { GGUFValueType } = require('@huggingface/gguf');
const { bertToGguf } = require('./bert-to-gguf');
const { readGguf, safetensorsFile } = require('./spec-support');

// A one-layer BERT small enough to spell out: hidden 4, feed-forward 8, seven tokens.
const config = {
  num_hidden_layers: 1,
  hidden_size: 4,
  intermediate_size: 8,
  num_attention_heads: 2,
  max_position_embeddings: 8,
  type_vocab_size: 2,
  vocab_size: 7,
  layer_norm_eps: 1e-12,
};
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const tokenizer = {
  model: { type: 'WordPiece', vocab: Object.fromEntries([...SPECIALS, 'hello', '##lo'].map((text, id) => [text, id])) },
  added_tokens: SPECIALS.map((content, id) => ({ id, content, special: true })),
};

/** Row-major shapes as Hugging Face's BertModel saves them. */
const SHAPES = {
  'embeddings.word_embeddings.weight': [7, 4],
  'embeddings.token_type_embeddings.weight': [2, 4],
  'embeddings.position_embeddings.weight': [8, 4],
  'embeddings.LayerNorm.weight': [4],
  'embeddings.LayerNorm.bias': [4],
  ...Object.fromEntries(
    ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense'].flatMap((part) => [
      [`encoder.layer.0.${part}.weight`, [4, 4]],
      [`encoder.layer.0.${part}.bias`, [4]],
    ]),
  ),
  'encoder.layer.0.attention.output.LayerNorm.weight': [4],
  'encoder.layer.0.attention.output.LayerNorm.bias': [4],
  'encoder.layer.0.intermediate.dense.weight': [8, 4],
  'encoder.layer.0.intermediate.dense.bias': [8],
  'encoder.layer.0.output.dense.weight': [4, 8],
  'encoder.layer.0.output.dense.bias': [4],
  'encoder.layer.0.output.LayerNorm.weight': [4],
  'encoder.layer.0.output.LayerNorm.bias': [4],
};

// Eighths from -2: every value is exact in float16, so F16 tensors read back equal to their source.
const valuesOf = (shape, seed) =>
  Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => ((seed + i) % 33) / 8 - 2);

const source = Object.fromEntries(
  Object.entries(SHAPES).map(([name, shape], seed) => [name, { dtype: 'F32', shape, data: valuesOf(shape, seed) }]),
);

const convert = (overrides = {}) =>
  bertToGguf({
    name: 'tiny-bert',
    license: 'apache-2.0',
    weights: safetensorsFile({
      ...source,
      'embeddings.position_ids': { dtype: 'I64', shape: [1, 8], data: [0, 1, 2, 3, 4, 5, 6, 7] },
    }),
    tokenizer,
    config,
    pooling: { pooling_mode_mean_tokens: true },
    ...overrides,
  });

describe('bertToGguf', () => {
  it("writes the metadata llama.cpp's BERT graph reads, with the vocabulary in phantom-space spelling", async () => {
    const { metadata } = await readGguf(convert());
    const value = (key) => metadata[key].value;

    expect(Object.keys(metadata).slice(3)).toEqual([
      'general.architecture',
      'general.type',
      'general.name',
      'general.license',
      'bert.block_count',
      'bert.context_length',
      'bert.embedding_length',
      'bert.feed_forward_length',
      'bert.attention.head_count',
      'bert.attention.layer_norm_epsilon',
      'general.file_type',
      'bert.attention.causal',
      'bert.pooling_type',
      'tokenizer.ggml.token_type_count',
      'tokenizer.ggml.model',
      'tokenizer.ggml.pre',
      'tokenizer.ggml.tokens',
      'tokenizer.ggml.token_type',
      'tokenizer.ggml.unknown_token_id',
      'tokenizer.ggml.seperator_token_id',
      'tokenizer.ggml.padding_token_id',
      'tokenizer.ggml.cls_token_id',
      'tokenizer.ggml.mask_token_id',
      'general.quantization_version',
    ]);
    expect(value('general.architecture')).toBe('bert');
    expect(value('general.name')).toBe('tiny-bert');
    expect([
      value('bert.block_count'),
      value('bert.context_length'),
      value('bert.embedding_length'),
      value('bert.feed_forward_length'),
      value('bert.attention.head_count'),
    ]).toEqual([1, 8, 4, 8, 2]);
    expect(metadata['bert.attention.layer_norm_epsilon']).toEqual({
      type: GGUFValueType.FLOAT32,
      value: Math.fround(1e-12),
    });
    expect(metadata['bert.attention.causal']).toEqual({ type: GGUFValueType.BOOL, value: false });
    expect(value('bert.pooling_type')).toBe(1); // mean
    expect(value('tokenizer.ggml.tokens')).toEqual([...SPECIALS, '\u2581hello', 'lo']);
    expect(metadata['tokenizer.ggml.token_type']).toEqual({
      type: GGUFValueType.ARRAY,
      subType: GGUFValueType.INT32,
      value: [3, 3, 3, 3, 3, 1, 1],
    });
    expect(
      ['unknown', 'seperator', 'padding', 'cls', 'mask'].map((role) => value(`tokenizer.ggml.${role}_token_id`)),
    ).toEqual([1, 3, 0, 2, 4]);
  });

  it("names, shapes and types the tensors as llama.cpp's converter does, 2-D weights F16 except the token types", async () => {
    const { tensors } = await readGguf(convert());

    expect([...tensors].map(([name, { shape, type }]) => `${name} ${type} [${shape}]`)).toEqual([
      'token_embd.weight F16 [4,7]',
      'token_types.weight F32 [4,2]',
      'position_embd.weight F16 [4,8]',
      'token_embd_norm.weight F32 [4]',
      'token_embd_norm.bias F32 [4]',
      'blk.0.attn_q.weight F16 [4,4]',
      'blk.0.attn_k.weight F16 [4,4]',
      'blk.0.attn_v.weight F16 [4,4]',
      'blk.0.attn_output.weight F16 [4,4]',
      'blk.0.attn_output_norm.weight F32 [4]',
      'blk.0.ffn_up.weight F16 [4,8]',
      'blk.0.ffn_down.weight F16 [8,4]',
      'blk.0.layer_output_norm.weight F32 [4]',
      'blk.0.attn_q.bias F32 [4]',
      'blk.0.attn_k.bias F32 [4]',
      'blk.0.attn_v.bias F32 [4]',
      'blk.0.attn_output.bias F32 [4]',
      'blk.0.attn_output_norm.bias F32 [4]',
      'blk.0.ffn_up.bias F32 [8]',
      'blk.0.ffn_down.bias F32 [4]',
      'blk.0.layer_output_norm.bias F32 [4]',
    ]);
  });

  it('keeps every value, in row-major order', async () => {
    const { tensors } = await readGguf(convert());

    expect(tensors.get('token_embd.weight').values).toEqual(source['embeddings.word_embeddings.weight'].data);
    expect(tensors.get('token_types.weight').values).toEqual(source['embeddings.token_type_embeddings.weight'].data);
    expect(tensors.get('blk.0.ffn_up.weight').values).toEqual(source['encoder.layer.0.intermediate.dense.weight'].data);
    expect(tensors.get('blk.0.ffn_down.bias').values).toEqual(source['encoder.layer.0.output.dense.bias'].data);
  });

  it('writes CLS pooling when the sentence-transformers pooling asks for it', async () => {
    const { metadata } = await readGguf(convert({ pooling: { pooling_mode_cls_token: true } }));
    expect(metadata['bert.pooling_type'].value).toBe(2);
  });

  it('refuses a tokenizer that is not WordPiece', () => {
    expect(() => convert({ tokenizer: { ...tokenizer, model: { ...tokenizer.model, type: 'BPE' } } })).toThrow(
      'expected a WordPiece tokenizer',
    );
  });

  it('refuses a vocabulary that does not fill vocab_size', () => {
    expect(() => convert({ config: { ...config, vocab_size: 8 } })).toThrow('vocabulary has holes');
  });
});
