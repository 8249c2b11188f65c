import { ChatChoice, ChatMessage, contentText } from '@gateway/contracts';
import type { BytePairEncodingCore } from 'gpt-tokenizer/cjs/BytePairEncodingCore';
import type * as O200kEncoding from 'gpt-tokenizer/cjs/encoding/o200k_base';
import type { TokenizerName } from '../catalog.types';
import { cl100kTokens, cl100kTokensWithin } from './cl100k';
import { loadQwen2 } from './qwen2';

/**
 * Token counts by the tokenizer a model's upstream counts with (the catalog's `tokenizer:`): `max_input_tokens`,
 * quota reservations, and an upstream answer without usage. Each tokenizer's tables are loaded on first use and
 * kept: tens of MB that every major GC of the process then walks (docs/decisions/tokenizers.md has the figures), so
 * callers count only when they must (a cheap bound first, `mostTokens`; no count without a token quota).
 */
export interface Tokenizer {
  readonly name: TokenizerName;
  /** The tokens of `text`; special-token text such as `<|endoftext|>` is ordinary text, as the upstreams count it. */
  count(text: string): number;
  /** The tokens of `text` if there are at most `limit`, else `undefined`; counting stops past the limit. */
  countWithin(text: string, limit: number): number | undefined;
  /** A bound no count of `text` exceeds, from its length alone (no table loaded). */
  mostTokens(text: string): number;
}

/**
 * A token is at least one UTF-8 byte, and a UTF-16 code unit at most three bytes. Qwen normalizes to NFC first,
 * which can make one code unit six bytes (U+FB2C, three code points of two bytes).
 */
const BYTES_PER_CODE_UNIT = { cl100k_base: 3, o200k_base: 3, qwen2: 6 } as const satisfies Record<
  TokenizerName,
  number
>;

/** gpt-tokenizer's encodings: whole count, and a generator that can stop past a limit. */
interface Encoding {
  countTokens(text: string, options: typeof ORDINARY): number;
  isWithinTokenLimit(text: string, limit: number, options: typeof ORDINARY): number | false;
}

const ORDINARY = { disallowedSpecial: new Set<string>() };

let o200k: Encoding | undefined;
let qwen2: BytePairEncodingCore | undefined;

function o200kEncoding(): Encoding {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  o200k ??= require('gpt-tokenizer/cjs/encoding/o200k_base') as typeof O200kEncoding;
  return o200k;
}

function qwen2Encoding(): BytePairEncodingCore {
  qwen2 ??= loadQwen2();
  return qwen2;
}

function boundBy(name: TokenizerName): (text: string) => number {
  return (text) => text.length * BYTES_PER_CODE_UNIT[name];
}

const TOKENIZER_TABLE: Record<TokenizerName, Tokenizer> = {
  cl100k_base: {
    name: 'cl100k_base',
    count: cl100kTokens,
    countWithin: cl100kTokensWithin,
    mostTokens: boundBy('cl100k_base'),
  },
  o200k_base: {
    name: 'o200k_base',
    count: (text) => o200kEncoding().countTokens(text, ORDINARY),
    countWithin: (text, limit) => {
      const count = o200kEncoding().isWithinTokenLimit(text, limit, ORDINARY);
      return count === false ? undefined : count;
    },
    mostTokens: boundBy('o200k_base'),
  },
  qwen2: {
    name: 'qwen2',
    // tokenizer.json's normalizer: NFC before the split.
    count: (text) => qwen2Encoding().countNative(text.normalize('NFC')),
    countWithin: (text, limit) => {
      let count = 0;
      for (const tokens of qwen2Encoding().encodeNativeGenerator(text.normalize('NFC'))) {
        count += tokens.length;
        if (count > limit) return undefined;
      }
      return count;
    },
    mostTokens: boundBy('qwen2'),
  },
};

export function tokenizerOf(name: TokenizerName): Tokenizer {
  return TOKENIZER_TABLE[name];
}

/**
 * The tokens of a chat request's messages: their text and tool calls' arguments. The chat template's few tokens a
 * message (role, delimiters) are left out: the upstream's usage settles the task's count.
 */
export function countMessageTokens(messages: readonly ChatMessage[], tokenizer: Tokenizer): number {
  let sum = 0;
  for (const message of messages) {
    const text = contentText(message.content);
    if (text) sum += tokenizer.count(text);
    for (const call of message.tool_calls ?? []) sum += tokenizer.count(call.function.arguments);
  }
  return sum;
}

/** The tokens of a chat answer's choices: their text, refusals and tool calls' arguments. */
export function countChoiceTokens(choices: readonly ChatChoice[], tokenizer: Tokenizer): number {
  let sum = 0;
  for (const { message } of choices) {
    for (const text of [message.content, message.refusal]) if (text) sum += tokenizer.count(text);
    for (const call of message.tool_calls ?? []) sum += tokenizer.count(call.function.arguments);
  }
  return sum;
}
