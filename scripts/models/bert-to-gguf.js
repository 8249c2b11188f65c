'use strict';
// A BERT sentence-embedding checkpoint (safetensors + tokenizer.json) as the GGUF file llama.cpp's
// convert_hf_to_gguf.py writes for BertModel with --outtype f16, so llama.cpp's BERT graph runs it.
const { safetensorsToGguf } = require('./safetensors-to-gguf');
const { GGML_TYPE } = require('./gguf-writer');

const TOKEN_TYPE = { NORMAL: 1, CONTROL: 3 };
const POOLING_TYPE = { MEAN: 1, CLS: 2 };
const FILE_TYPE_MOSTLY_F16 = 1;

/**
 * @typedef {object} BertCheckpoint
 * @property {string} name written as general.name
 * @property {string} license written as general.license
 * @property {Buffer} weights model.safetensors
 * @property {any} tokenizer tokenizer.json, parsed
 * @property {any} config config.json, parsed
 * @property {any} pooling sentence-transformers' 1_Pooling/config.json, parsed
 */

/**
 * @param {BertCheckpoint} checkpoint
 * @returns {Buffer} the GGUF file
 */
function bertToGguf({ name, license, weights, tokenizer, config, pooling }) {
  if (tokenizer.model?.type !== 'WordPiece') throw new Error(`${name}: expected a WordPiece tokenizer`);
  if (!pooling.pooling_mode_mean_tokens && !pooling.pooling_mode_cls_token)
    throw new Error(`${name}: only mean or CLS pooling is supported`);
  const vocabulary = wordPieceVocabulary(name, tokenizer, config);
  /** @type {import('./gguf-writer').GgufMetadataEntry[]} */
  const metadata = [
    ['general.architecture', 'string', 'bert'],
    ['general.type', 'string', 'model'],
    ['general.name', 'string', name],
    ['general.license', 'string', license],
    ['bert.block_count', 'u32', config.num_hidden_layers],
    ['bert.context_length', 'u32', config.max_position_embeddings],
    ['bert.embedding_length', 'u32', config.hidden_size],
    ['bert.feed_forward_length', 'u32', config.intermediate_size],
    ['bert.attention.head_count', 'u32', config.num_attention_heads],
    ['bert.attention.layer_norm_epsilon', 'f32', config.layer_norm_eps],
    ['general.file_type', 'u32', FILE_TYPE_MOSTLY_F16],
    ['bert.attention.causal', 'bool', false],
    ['bert.pooling_type', 'u32', pooling.pooling_mode_mean_tokens ? POOLING_TYPE.MEAN : POOLING_TYPE.CLS],
    ['tokenizer.ggml.token_type_count', 'u32', config.type_vocab_size],
    ['tokenizer.ggml.model', 'string', 'bert'],
    ['tokenizer.ggml.pre', 'string', 'default'],
    ['tokenizer.ggml.tokens', 'strings', vocabulary.tokens],
    ['tokenizer.ggml.token_type', 'i32s', vocabulary.tokenTypes],
    ['tokenizer.ggml.unknown_token_id', 'u32', vocabulary.idOf('[UNK]')],
    ['tokenizer.ggml.seperator_token_id', 'u32', vocabulary.idOf('[SEP]')], // sic: llama.cpp's key
    ['tokenizer.ggml.padding_token_id', 'u32', vocabulary.idOf('[PAD]')],
    ['tokenizer.ggml.cls_token_id', 'u32', vocabulary.idOf('[CLS]')],
    ['tokenizer.ggml.mask_token_id', 'u32', vocabulary.idOf('[MASK]')],
    ['general.quantization_version', 'u32', 2],
  ];
  return safetensorsToGguf(weights, {
    metadata,
    tensors: bertTensorNames(config.num_hidden_layers),
    typeOf: bertTensorType,
  });
}

/**
 * The WordPiece vocabulary in llama.cpp's "phantom space" spelling: word starts gain U+2581, "##" continuations
 * lose their prefix, special tokens stay as they are (and are typed CONTROL).
 */
function wordPieceVocabulary(name, tokenizer, config) {
  const specials = new Set(tokenizer.added_tokens.filter((token) => token.special).map((token) => token.id));
  /** @type {string[]} */
  const texts = [];
  for (const [text, id] of Object.entries(tokenizer.model.vocab)) texts[id] = text;
  if (texts.length !== config.vocab_size || texts.some((text) => text === undefined))
    throw new Error(`${name}: vocabulary has holes`);
  return {
    tokens: texts.map((text, id) =>
      specials.has(id) ? text : text.startsWith('##') ? text.slice(2) : `\u2581${text}`,
    ),
    tokenTypes: texts.map((_, id) => (specials.has(id) ? TOKEN_TYPE.CONTROL : TOKEN_TYPE.NORMAL)),
    /** @param {string} text */
    idOf: (text) => {
      const id = tokenizer.model.vocab[text];
      if (id === undefined) throw new Error(`${name}: ${text} is not in the vocabulary`);
      return id;
    },
  };
}

/**
 * Hugging Face BertModel tensor names → llama.cpp's, in the order convert_hf_to_gguf.py writes them.
 * @param {number} layers
 * @returns {import('./safetensors-to-gguf').TensorRename[]}
 */
function bertTensorNames(layers) {
  const names = [
    { from: 'embeddings.word_embeddings.weight', to: 'token_embd.weight' },
    { from: 'embeddings.token_type_embeddings.weight', to: 'token_types.weight' },
    { from: 'embeddings.position_embeddings.weight', to: 'position_embd.weight' },
    { from: 'embeddings.LayerNorm.weight', to: 'token_embd_norm.weight' },
    { from: 'embeddings.LayerNorm.bias', to: 'token_embd_norm.bias' },
  ];
  for (let i = 0; i < layers; i++) {
    const hf = `encoder.layer.${i}`;
    const blk = `blk.${i}`;
    for (const part of ['weight', 'bias']) {
      names.push(
        { from: `${hf}.attention.self.query.${part}`, to: `${blk}.attn_q.${part}` },
        { from: `${hf}.attention.self.key.${part}`, to: `${blk}.attn_k.${part}` },
        { from: `${hf}.attention.self.value.${part}`, to: `${blk}.attn_v.${part}` },
        { from: `${hf}.attention.output.dense.${part}`, to: `${blk}.attn_output.${part}` },
        { from: `${hf}.attention.output.LayerNorm.${part}`, to: `${blk}.attn_output_norm.${part}` },
        { from: `${hf}.intermediate.dense.${part}`, to: `${blk}.ffn_up.${part}` },
        { from: `${hf}.output.dense.${part}`, to: `${blk}.ffn_down.${part}` },
        { from: `${hf}.output.LayerNorm.${part}`, to: `${blk}.layer_output_norm.${part}` },
      );
    }
  }
  return names;
}

/**
 * 2-D weights go to F16; norms, biases and the token-type rows (added to F32 activations as they are) stay F32,
 * as convert_hf_to_gguf.py does for --outtype f16.
 * @param {string} name
 * @param {number[]} shape
 */
const bertTensorType = (name, shape) =>
  shape.length >= 2 && name !== 'token_types.weight' ? GGML_TYPE.F16 : GGML_TYPE.F32;

module.exports = { bertToGguf };
