import type * as Cl100kEncoding from 'gpt-tokenizer/cjs/encoding/cl100k_base';

/**
 * cl100k_base, the tokenizer of OpenAI's embedding models and the one LangChain encodes token-id inputs with, from
 * gpt-tokenizer, which ships its ranks (nothing is downloaded). Embeddings' token ids are its; the models that
 * declare it (tokenizers.ts, the catalog's `tokenizer:`) count their tokens with it.
 */

interface Cl100k {
  encoding: typeof Cl100kEncoding;
  /** Rank → the token's text, or its bytes when they are not UTF-8 on their own (part of a character). */
  ranks: (string | number[])[];
}

let loaded: Cl100k | undefined;

/**
 * Loaded on first use: the ranks take ~44 MB and ~65 ms to load (measured on this machine). Once loaded, every major
 * GC of the process walks them (+50 % GC time in the api under bench:overhead), so a request that needs no count
 * (short texts, embedding-inputs.ts) never loads them.
 */
function cl100k(): Cl100k {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily, see above */
  loaded ??= {
    encoding: require('gpt-tokenizer/cjs/encoding/cl100k_base') as typeof Cl100kEncoding,
    // The same module instance the encoding reads, so the ranks are held once.
    ranks: (require('gpt-tokenizer/cjs/bpeRanks/cl100k_base') as { default: (string | number[])[] }).default,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return loaded;
}

/** Special-token text such as `<|endoftext|>` in a caller's text is ordinary text, as OpenAI's API counts it. */
const ORDINARY = { disallowedSpecial: new Set<string>() };

/** The tokens of `text`. */
export function cl100kTokens(text: string): number {
  return cl100k().encoding.countTokens(text, ORDINARY);
}

/**
 * The tokens of `text` if there are at most `limit`, else `undefined`. Counting stops past the limit, so a huge text
 * costs no more than `limit` tokens' worth of work.
 */
export function cl100kTokensWithin(text: string, limit: number): number | undefined {
  // A token is at least one UTF-8 byte and a UTF-16 code unit at most three: a text this short is within the
  // limit, and counting it whole is the cheaper call.
  if (text.length * 3 <= limit) return cl100kTokens(text);
  const count = cl100k().encoding.isWithinTokenLimit(text, limit, ORDINARY);
  return count === false ? undefined : count;
}

/** The ordinary vocabulary's size: ids 0 to 100255 (cl100k_base's ranks). */
const CL100K_ORDINARY_TOKENS = 100_256;

/** Ids of the ordinary vocabulary, 0 to 100255; the special tokens (`<|endoftext|>`, …) are not text. */
export function isCl100kToken(id: unknown): id is number {
  return Number.isInteger(id) && (id as number) >= 0 && (id as number) < CL100K_ORDINARY_TOKENS;
}

/** Bytes of a cut character decode alone: a fresh decode per text, never gpt-tokenizer's streaming decoder. */
const utf8 = new TextDecoder();

/**
 * The text of cl100k token ids (all `isCl100kToken`), as tiktoken decodes it: bytes that do not form a character
 * (an input cut inside one) become U+FFFD. gpt-tokenizer's own `decode` keeps such bytes in a decoder shared by
 * every call, where they would spill into the next text decoded.
 */
export function decodeCl100k(ids: readonly number[]): string {
  const { ranks } = cl100k();
  let text = '';
  let bytes: number[] = [];
  for (const id of ids) {
    const token = ranks[id];
    if (typeof token !== 'string') {
      for (const byte of token) bytes.push(byte);
      continue;
    }
    // A token that is text on its own starts a character, so no pending byte can complete with it.
    if (bytes.length > 0) {
      text += utf8.decode(Uint8Array.from(bytes));
      bytes = [];
    }
    text += token;
  }
  return bytes.length > 0 ? text + utf8.decode(Uint8Array.from(bytes)) : text;
}
