import { decodeCl100k, isCl100kToken, Tokenizer } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';

/** OpenAI's request-wide limits of `input` (API reference, "Create embeddings"). */
export const OPENAI_MAX_INPUTS = 2048;
export const OPENAI_MAX_REQUEST_TOKENS = 300_000;

export interface InputRules {
  maxInputs: number;
  /** Tokens one input may hold; 0 for no limit of the model's own. */
  maxInputTokens: number;
  /** The model's tokenizer (the catalog's `tokenizer:`), which every limit here counts with. */
  tokenizer: Tokenizer;
}

export interface EmbeddingInputs {
  /** The inputs as text, token ids decoded: what every upstream takes. */
  texts: string[];
  /**
   * Tokens in all, by the model's tokenizer: known once a limit was counted, else counted when first asked for
   * (withinLimitsUncounted), which only a token quota's reservation does.
   */
  tokens: () => number;
}

const SHAPE = 'must be a string, an array of strings, an array of token ids or an array of token-id arrays';

/**
 * OpenAI's `input` in its four shapes (a string, strings, token ids, token-id arrays), checked in one pass and
 * refused at the first problem with its exact place (`input[3][7]`). Token ids are cl100k_base's, the tokenizer
 * LangChain encodes with, and are decoded to text. Limits count with the model's tokenizer, and counting stops once
 * a limit is passed, so a huge input costs no more than the limits' worth of work.
 */
export function readEmbeddingInputs(input: unknown, rules: InputRules): EmbeddingInputs {
  return (
    withinLimitsUncounted(input, rules) ??
    readInputs(input, rules, new TokenBudget(rules.maxInputTokens, rules.tokenizer))
  );
}

/**
 * Texts so short that no limit can be reached need no count: the tokenizer's bound from a text's length alone
 * (`mostTokens`: a token is at least one UTF-8 byte) is within every limit. Such a request (the common one) is read
 * without the tokenizer, whose tables cost every major GC of the api once loaded; its tokens are counted only if a
 * token quota asks, once. Anything else (token ids, a longer text) is counted now: undefined.
 */
function withinLimitsUncounted(input: unknown, rules: InputRules): EmbeddingInputs | undefined {
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || texts.length > rules.maxInputs) return undefined;
  const perInput = rules.maxInputTokens > 0 ? rules.maxInputTokens : OPENAI_MAX_REQUEST_TOKENS;
  let bound = 0;
  for (const text of texts) {
    if (typeof text !== 'string' || text.length === 0) return undefined;
    const most = rules.tokenizer.mostTokens(text);
    if (most > perInput) return undefined;
    bound += most;
  }
  if (bound > OPENAI_MAX_REQUEST_TOKENS) return undefined;
  const { tokenizer } = rules;
  let counted: number | undefined;
  const tokens = () => (counted ??= (texts as string[]).reduce((sum, text) => sum + tokenizer.count(text), 0));
  return { texts: texts as string[], tokens };
}

function readInputs(input: unknown, rules: InputRules, budget: TokenBudget): EmbeddingInputs {
  if (typeof input === 'string') return { texts: [budget.text(input, 'input')], tokens: budget.counted() };
  if (!Array.isArray(input)) throw invalid(`input ${SHAPE}`, 'input');
  if (input.length === 0) throw invalid('input must not be an empty array', 'input');
  const first: unknown = input[0];
  // A flat array of numbers is one input, given as token ids.
  if (typeof first === 'number') return { texts: [budget.ids(input, 'input')], tokens: budget.counted() };
  if (input.length > rules.maxInputs) {
    throw invalid(`input holds ${input.length} inputs; this model takes at most ${rules.maxInputs}`, 'input');
  }
  const kind = typeof first === 'string' ? 'string' : Array.isArray(first) ? 'token-id array' : undefined;
  if (!kind) throw invalid(`input[0] must be a string, a token id or an array of token ids`, 'input[0]');
  const texts = new Array<string>(input.length);
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    const at = `input[${i}]`;
    if (kind === 'string' ? typeof item !== 'string' : !Array.isArray(item)) {
      throw invalid(`${at} must be a ${kind} like input[0]: one request takes inputs of one kind`, at);
    }
    texts[i] = typeof item === 'string' ? budget.text(item, at) : budget.ids(item as unknown[], at);
  }
  return { texts, tokens: budget.counted() };
}

/** The per-input and per-request token limits, counted by the model's tokenizer as inputs are read. */
class TokenBudget {
  private total = 0;

  constructor(
    private readonly perInput: number,
    private readonly tokenizer: Tokenizer,
  ) {}

  counted(): () => number {
    const total = this.total;
    return () => total;
  }

  text(text: string, at: string): string {
    if (text.length === 0) throw invalid(`${at} must not be empty`, at);
    this.count(text, at);
    return text;
  }

  /**
   * Token ids are cl100k_base's: their number is the count for a cl100k_base model; any other model counts their
   * text as its upstream will.
   */
  ids(ids: unknown[], at: string): string {
    if (ids.length === 0) throw invalid(`${at} must not be an empty array`, at);
    const byIds = this.tokenizer.name === 'cl100k_base';
    const limit = this.limitFor();
    if (byIds && ids.length > limit) throw this.overLimit(at, limit);
    for (let j = 0; j < ids.length; j++) {
      if (!isCl100kToken(ids[j])) {
        throw invalid(
          `${at}[${j}] must be a cl100k_base token id, a whole number from 0 to 100255; got ${shown(ids[j])}`,
          `${at}[${j}]`,
        );
      }
    }
    const text = decodeCl100k(ids as number[]);
    if (byIds) this.total += ids.length;
    else this.count(text, at);
    return text;
  }

  private count(text: string, at: string): void {
    const limit = this.limitFor();
    const tokens = this.tokenizer.countWithin(text, limit);
    if (tokens === undefined) throw this.overLimit(at, limit);
    this.total += tokens;
  }

  /** The tighter of the input's own limit and what is left of the request's. */
  private limitFor(): number {
    const left = OPENAI_MAX_REQUEST_TOKENS - this.total;
    return this.perInput > 0 ? Math.min(this.perInput, left) : left;
  }

  private overLimit(at: string, limit: number): GatewayError {
    if (limit === this.perInput) return invalid(`${at} is longer than ${this.perInput} tokens`, at);
    return invalid(`input holds more than ${OPENAI_MAX_REQUEST_TOKENS} tokens in all`, 'input');
  }
}

/** A refused value as a message names it: a number or a short string as it is, anything else by its type. */
function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.length <= 20 ? JSON.stringify(value) : 'a string';
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function invalid(message: string, param: string): GatewayError {
  return new GatewayError('InvalidParameter', message, { param });
}
