// Worker-thread entry of LocalModelHost (local-model-host.ts): loads the local chat and embedding GGUF models once
// with node-llama-cpp and serves chat and embedding requests posted by the host. It is plain ESM because
// node-llama-cpp is ESM-only while the gateway (and jest) run CommonJS; a worker thread loads it with Node's own
// loader, and keeps CPU-bound inference off the event loop that renews the worker's BullMQ locks.
//
// It generates text and nothing more: what the text means (tool calls, JSON) is the TypeScript side's
// (libs/providers/src/local/chat), which sends the messages already rendered and the grammar as a JSON schema.
//
// In:  { id, kind: 'chat', messages, n?, maxTokens?, temperature?, topP?, seed?, stop?, presencePenalty?,
//        frequencyPenalty?, logitBias?: [token, bias][], grammar?: { type: 'json' } | { type: 'json_schema', schema } }
//      { id, kind: 'cancel' }   { id, kind: 'embed', texts }   { kind: 'close' }
// Out: { type: 'ready', chatAvailable, embeddingDimensions?, chatContextSize?, embeddingContextSize? } once, or
//      { type: 'fatal', message } when loading fails; then per request { id, type: 'delta', index, text }…,
//      { id, type: 'done', … } or { id, type: 'error', message, invalid? } (invalid: the request itself is at fault).
import { availableParallelism } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

const options = workerData ?? {};
const chatConcurrency = Math.max(1, options.chatConcurrency ?? 1);
const embeddingConcurrency = Math.max(1, options.embeddingConcurrency ?? 1);
const chatContextSize = options.chatContextSize ?? 2048;
// Always explicit: with node-llama-cpp's own default (threads shared between contexts) a 135M model took 27 s
// instead of 0.2 s for 8 tokens on this 2-core machine.
const threads = Math.max(1, options.threads ?? availableParallelism());

/** Fixed slots of one context (one sequence) each; requests beyond them wait in FIFO order. */
class SlotPool {
  constructor(slots) {
    this.free = [...slots];
    this.waiting = [];
  }

  /** Resolves with a slot, or with null when `signal` aborts first. */
  acquire(signal) {
    const slot = this.free.pop();
    if (slot) return Promise.resolve(slot);
    return new Promise((resolve) => {
      const waiter = (freed) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(freed);
      };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(slot) {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }
}

let runtime;
let llama;
let chatModel;
let embeddingModel;
let chatWrapper;
let chatPool;
let embeddingPool;
const running = new Map(); // id → AbortController of a chat that is queued or generating

const post = (message) => parentPort.postMessage(message);
const errorText = (error) => (error instanceof Error ? error.message : String(error));

async function load() {
  runtime = await import('node-llama-cpp');
  llama = await runtime.getLlama({
    gpu: false,
    build: 'never', // prebuilt binaries only: building llama.cpp from source is never wanted here
    progressLogs: false,
    logLevel: runtime.LlamaLogLevel.error,
  });
  if (options.chatModelPath) {
    chatModel = await llama.loadModel({ modelPath: options.chatModelPath });
    const slots = [];
    for (let i = 0; i < chatConcurrency; i++) {
      const context = await chatModel.createContext({
        contextSize: Math.min(chatContextSize, chatModel.trainContextSize),
        threads,
      });
      slots.push({ context, sequence: context.getSequence() });
    }
    chatPool = new SlotPool(slots);
    // The chat template from the GGUF's metadata (ChatML for SmolLM2), resolved once.
    const probe = new runtime.LlamaChat({ contextSequence: slots[0].sequence, autoDisposeSequence: false });
    chatWrapper = probe.chatWrapper;
    probe.dispose();
  }
  if (options.embeddingModelPath) {
    embeddingModel = await llama.loadModel({ modelPath: options.embeddingModelPath });
    const slots = [];
    for (let i = 0; i < embeddingConcurrency; i++) {
      slots.push(
        await embeddingModel.createEmbeddingContext({ contextSize: embeddingModel.trainContextSize, threads }),
      );
    }
    embeddingPool = new SlotPool(slots);
  }
  return {
    type: 'ready',
    chatAvailable: Boolean(chatModel),
    chatContextSize: chatPool ? chatPool.free[0].context.contextSize : undefined,
    embeddingDimensions: embeddingModel?.embeddingVectorSize,
    embeddingContextSize: embeddingModel?.trainContextSize,
  };
}

/** Rendered messages → node-llama-cpp chat history ending in the model turn to generate. */
function toHistory(messages) {
  const history = messages.map((message) => {
    if (message.role === 'system') return { type: 'system', text: message.content };
    if (message.role === 'assistant') return { type: 'model', response: [message.content] };
    if (message.role === 'user') return { type: 'user', text: message.content };
    throw new RequestError(`unsupported message role ${message.role}`);
  });
  history.push({ type: 'model', response: [] });
  return history;
}

/** A request the model cannot serve as asked (the host answers it as the caller's fault, not the engine's). */
class RequestError extends Error {}

const FINISH_REASONS = {
  eogToken: 'stop',
  stopGenerationTrigger: 'stop',
  customStopTrigger: 'stop',
  maxTokens: 'length',
  abort: 'cancelled',
};

// Seeds go to llama.cpp as 32-bit; 0xFFFFFFFF there means "pick one at random".
const SEED_RANGE = 0xffffffff;
const grammars = new Map(); // JSON of the grammar request → LlamaGrammar, most recently used last
const GRAMMAR_CACHE_SIZE = 16;

/** The grammar a request constrains its output with, built once per distinct schema. */
async function grammarFor(request) {
  if (!request) return undefined;
  const key = JSON.stringify(request);
  let grammar = grammars.get(key);
  if (grammar) {
    grammars.delete(key);
  } else {
    try {
      grammar =
        request.type === 'json'
          ? await llama.getGrammarFor('json')
          : await llama.createGrammarForJsonSchema(request.schema);
    } catch (error) {
      throw new RequestError(`the local model cannot constrain its output to this schema: ${errorText(error)}`);
    }
    if (grammars.size >= GRAMMAR_CACHE_SIZE) grammars.delete(grammars.keys().next().value);
  }
  grammars.set(key, grammar);
  return grammar;
}

/** OpenAI's logit_bias on the model's own token ids: -100 bans a token, other values are added to its logit. */
function tokenBiasFor(entries) {
  if (!entries?.length) return undefined;
  const bias = new runtime.TokenBias(chatModel.tokenizer);
  const vocabularySize = chatModel.fileInfo.metadata.tokenizer.ggml.tokens.length;
  for (const [token, value] of entries) {
    if (!Number.isInteger(token) || token < 0 || token >= vocabularySize)
      throw new RequestError(
        `logit_bias names token ${token}; the local chat model's tokens are 0 to ${vocabularySize - 1}`,
      );
    // node-llama-cpp leaves end-of-generation tokens unbiased; saying so beats ignoring the caller's bias.
    if (chatModel.isEogToken(token))
      throw new RequestError(`logit_bias can not change token ${token}, the local chat model's end of turn`);
    bias.set(token, value <= -100 ? 'never' : { logit: value });
  }
  return bias;
}

async function chat(request, controller) {
  if (!chatPool) throw new Error('no local chat model is loaded');
  const history = toHistory(request.messages);
  // The prompt as the model's chat template renders it, counted in the model's tokens.
  const { contextText } = chatWrapper.generateContextState({ chatHistory: history });
  const promptTokens = contextText.tokenize(chatModel.tokenizer).length;
  const grammar = await grammarFor(request.grammar);
  const tokenBias = tokenBiasFor(request.logitBias);
  const result = { completions: [], promptTokens, completionTokens: 0 };
  const slot = await chatPool.acquire(controller.signal);
  if (!slot) return { ...result, completions: [{ content: '', finishReason: 'cancelled', completionTokens: 0 }] };
  const llamaChat = new runtime.LlamaChat({ contextSequence: slot.sequence, chatWrapper, autoDisposeSequence: false });
  try {
    const contextSize = slot.context.contextSize;
    if (promptTokens >= contextSize)
      throw new RequestError(
        `the prompt is ${promptTokens} tokens; the local chat model's context holds ${contextSize}`,
      );
    const maxTokens = Math.min(request.maxTokens ?? contextSize, contextSize - promptTokens);
    const temperature = request.temperature ?? 1;
    const penalised = Boolean(request.presencePenalty || request.frequencyPenalty);
    // Without a seed, one drawn here: llama.cpp's own default is the current second, the same for every choice.
    const seed = request.seed ?? Math.floor(Math.random() * SEED_RANGE);
    const n = request.n ?? 1;
    for (let index = 0; index < n; index++) {
      if (controller.signal.aborted) {
        if (index === 0) result.completions.push({ content: '', finishReason: 'cancelled', completionTokens: 0 });
        break;
      }
      // A fresh sequence per completion: a reused prefix would make temperature-0 output depend on what ran before.
      await slot.sequence.clearHistory();
      let completionTokens = 0;
      const generated = await llamaChat.generateResponse(history, {
        maxTokens,
        temperature, // 0 = greedy
        // OpenAI samples from the whole vocabulary with top_p 1 unless asked otherwise; node-llama-cpp's own
        // defaults (top-k 40, top-p 0.95) would not. null leaves top-k out (undefined means 40); 0 would sort the
        // whole vocabulary (49,152 entries) each token: 60 tokens at temperature 1 took 1.1-1.4 s instead of 0.8-1.2 s
        // (5 runs each).
        topK: null,
        topP: request.topP ?? 1,
        seed: (seed + index) % SEED_RANGE, // each of n choices its own, so the same seed repeats all n
        // OpenAI's penalties are llama.cpp's additive ones over every generated token; the multiplicative repeat
        // penalty node-llama-cpp adds by default is not part of the API.
        repeatPenalty: penalised
          ? {
              penalty: 1,
              presencePenalty: request.presencePenalty ?? 0,
              frequencyPenalty: request.frequencyPenalty ?? 0,
              lastTokens: maxTokens,
              penalizeNewLine: true,
            }
          : false,
        tokenBias,
        grammar,
        customStopTriggers: request.stop?.length ? request.stop : undefined,
        signal: controller.signal,
        stopOnAbortSignal: true,
        onToken: (tokens) => {
          completionTokens += tokens.length;
        },
        onTextChunk: (text) => {
          if (text) post({ id: request.id, type: 'delta', index, text });
        },
      });
      result.completions.push({
        content: generated.response,
        finishReason: FINISH_REASONS[generated.metadata.stopReason] ?? 'stop',
        completionTokens,
      });
      result.completionTokens += completionTokens;
    }
    return result;
  } finally {
    llamaChat.dispose();
    chatPool.release(slot);
  }
}

async function embed(request) {
  if (!embeddingPool) throw new Error('no local embedding model is loaded');
  const context = await embeddingPool.acquire();
  try {
    const { bos, sep } = embeddingModel.tokens; // [CLS] and [SEP] for a BERT vocabulary
    const limit = embeddingModel.trainContextSize - 3; // node-llama-cpp needs the input shorter than the context
    const vectors = [];
    let promptTokens = 0;
    for (const text of request.texts) {
      // Longer inputs are cut to the model's window, as sentence-transformers does; the special tokens are added
      // here so that an empty text is embedded as [CLS] [SEP] rather than returned as an empty vector.
      const tokens = [bos, ...embeddingModel.tokenize(text).slice(0, limit), sep];
      promptTokens += tokens.length;
      const { vector } = await context.getEmbeddingFor(tokens);
      vectors.push(normalise(vector));
    }
    return { vectors, promptTokens };
  } finally {
    embeddingPool.release(context);
  }
}

function normalise(vector) {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  return Array.from(vector, (value) => value / norm);
}

async function close() {
  for (const controller of running.values()) controller.abort();
  await llama?.dispose();
  parentPort.close();
}

parentPort.on('message', (message) => {
  if (message.kind === 'close') {
    close().catch((error) => post({ type: 'fatal', message: errorText(error) }));
    return;
  }
  if (message.kind === 'cancel') {
    running.get(message.id)?.abort();
    return;
  }
  if (message.kind === 'chat') {
    const controller = new AbortController();
    running.set(message.id, controller);
    chat(message, controller)
      .then((result) => post({ id: message.id, type: 'done', ...result }))
      .catch((error) =>
        post({ id: message.id, type: 'error', message: errorText(error), invalid: error instanceof RequestError }),
      )
      .finally(() => running.delete(message.id));
    return;
  }
  if (message.kind === 'embed') {
    embed(message)
      .then((result) => post({ id: message.id, type: 'done', ...result }))
      .catch((error) => post({ id: message.id, type: 'error', message: errorText(error) }));
    return;
  }
  post({ id: message.id, type: 'error', message: `unknown request kind ${message.kind}` });
});

load().then(post, (error) => {
  post({ type: 'fatal', message: `could not load the local models: ${errorText(error)}` });
  parentPort.close();
});
