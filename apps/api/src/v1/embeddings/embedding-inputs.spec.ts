import { tokenizerOf } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { encode } from 'gpt-tokenizer/cjs/encoding/cl100k_base';
import { InputRules, OPENAI_MAX_REQUEST_TOKENS, readEmbeddingInputs } from './embedding-inputs';

const rules: InputRules = { maxInputs: 2048, maxInputTokens: 8192, tokenizer: tokenizerOf('cl100k_base') };
const qwen2Rules: InputRules = { ...rules, tokenizer: tokenizerOf('qwen2') };

/** The texts read and their tokens, as the quota would ask for them. */
function read(input: unknown, custom = rules): { texts: string[]; tokens: number } {
  const { texts, tokens } = readEmbeddingInputs(input, custom);
  return { texts, tokens: tokens() };
}

/** The `param` and message of the 400 that reading `input` throws. */
function refusal(input: unknown, custom = rules): { param: unknown; message: string } {
  try {
    readEmbeddingInputs(input, custom);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const { code, param, message } = error as GatewayError;
    expect(code).toBe('InvalidParameter');
    return { param, message };
  }
  throw new Error('the input was accepted');
}

describe('readEmbeddingInputs', () => {
  it('takes a string and an array of strings; texts too short to reach a limit are counted only when asked', () => {
    // 'tiktoken is great!' is 6 tokens (3 words): counted by the tokenizer when the quota asks, not estimated.
    let asked = 0;
    const counting = { ...rules.tokenizer, count: (text: string) => (asked++, rules.tokenizer.count(text)) };
    const inputs = readEmbeddingInputs(['hello world', 'tiktoken is great!'], { ...rules, tokenizer: counting });
    expect(inputs.texts).toEqual(['hello world', 'tiktoken is great!']);
    expect(asked).toBe(0);
    expect(inputs.tokens()).toBe(2 + 6);
    expect(inputs.tokens()).toBe(8);
    expect(asked).toBe(2);
    expect(read('hello world')).toEqual({ texts: ['hello world'], tokens: 2 });
  });

  it('counts tokens once a text could reach a limit', () => {
    const tight = { ...rules, maxInputTokens: 50 };
    expect(read(['tiktoken is great!'], tight)).toEqual({ texts: ['tiktoken is great!'], tokens: 6 });
  });

  it('counts with the model’s tokenizer: Qwen2 for DashScope’s models', () => {
    // 110 characters: 50 Qwen2 tokens, 120 cl100k_base ones, 100 words.
    const text = '人工智能正在改变世界。'.repeat(10);
    const tight = (base: InputRules) => ({ ...base, maxInputTokens: 60 });
    expect(read([text], tight(qwen2Rules))).toEqual({ texts: [text], tokens: 50 });
    expect(refusal([text], tight(rules))).toEqual({ param: 'input[0]', message: 'input[0] is longer than 60 tokens' });
    // Token ids are cl100k_base's (7 here); a Qwen2 model counts their text (4).
    expect(read(encode('你好，世界！'), qwen2Rules)).toEqual({ texts: ['你好，世界！'], tokens: 4 });
    expect(read(encode('你好，世界！'))).toEqual({ texts: ['你好，世界！'], tokens: 7 });
    // 120 ids over a limit of 60, whose text is 50 Qwen2 tokens: within it.
    expect(read(encode(text), tight(qwen2Rules)).tokens).toBe(50);
    expect(refusal(encode(text), tight(rules)).param).toBe('input');
    expect(refusal(encode(text), { ...qwen2Rules, maxInputTokens: 49 }).param).toBe('input');
  });

  it('decodes an array of token ids as one input, and an array of token-id arrays as many', () => {
    expect(read(encode('hello world'))).toEqual({ texts: ['hello world'], tokens: 2 });
    const texts = ['The cat sleeps.', '你好, world', 'naïve café'];
    expect(read(texts.map((text) => encode(text)))).toEqual({
      texts,
      tokens: texts.reduce((sum, text) => sum + encode(text).length, 0),
    });
  });

  it.each([
    ['a number', 5, 'input'],
    ['an object', { text: 'x' }, 'input'],
    ['null', null, 'input'],
    ['an empty string', '', 'input'],
    ['an empty array', [], 'input'],
    ['an empty string among strings', ['a', ''], 'input[1]'],
    ['an empty token-id array', [[1, 2], []], 'input[1]'],
    ['an object as the first input', [{ text: 'x' }], 'input[0]'],
    ['a number among strings', ['a', 'b', 7], 'input[2]'],
    ['a string among token-id arrays', [[1], [2], 'three'], 'input[2]'],
    ['a token-id array among strings', ['one', [2]], 'input[1]'],
    ['a string among token ids', [1, 2, 'three'], 'input[2]'],
    [
      'a fraction as a token id',
      [
        [1, 2],
        [3, 4.5],
      ],
      'input[1][1]',
    ],
    ['a negative token id', [9, -1], 'input[1]'],
    ['a special token (<|endoftext|>)', [[1], [2], [3, 4, 5, 6, 7, 8, 100257]], 'input[2][6]'],
    ['an id past the vocabulary', [[100256]], 'input[0][0]'],
    ['a string as a token id', [[1, '2']], 'input[0][1]'],
    ['an array nested too deep', [[[1]]], 'input[0][0]'],
  ])('refuses %s, naming its place', (_name, input, param) => {
    expect(refusal(input).param).toBe(param);
  });

  it('refuses more inputs than the model takes', () => {
    const { param, message } = refusal(['a', 'b', 'c'], { ...rules, maxInputs: 2, maxInputTokens: 0 });
    expect(param).toBe('input');
    expect(message).toContain('at most 2');
  });

  it('refuses an input longer than the model takes, counted in its tokenizer’s tokens', () => {
    // 9,000 words are 9,000 tokens; as text it is 45,000 characters.
    const long = 'word '.repeat(9000).trim();
    expect(refusal(['ok', long])).toEqual({ param: 'input[1]', message: 'input[1] is longer than 8192 tokens' });
    expect(refusal([[1], encode(long)]).param).toBe('input[1]');
    expect(refusal(encode(long)).param).toBe('input');
    // 8,192 tokens exactly pass.
    const atLimit = 'word '.repeat(8192).trim();
    expect(read([atLimit]).tokens).toBe(8192);
    // A text of few characters can hold many tokens: three per character here.
    expect(refusal('鬱'.repeat(3), { ...rules, maxInputs: 1, maxInputTokens: 8 }).param).toBe('input');
    // Two per character in Qwen2's.
    expect(read('鬱'.repeat(3), { ...qwen2Rules, maxInputTokens: 6 }).tokens).toBe(6);
  });

  it(`refuses more than ${OPENAI_MAX_REQUEST_TOKENS} tokens in one request`, () => {
    const chunk = 'word '.repeat(7500).trim();
    const fits = Array<string>(OPENAI_MAX_REQUEST_TOKENS / 7500).fill(chunk);
    expect(read(fits).tokens).toBe(OPENAI_MAX_REQUEST_TOKENS);
    expect(refusal([...fits, 'one more'])).toEqual({
      param: 'input',
      message: `input holds more than ${OPENAI_MAX_REQUEST_TOKENS} tokens in all`,
    });
    const ids = fits.map(() => encode(chunk));
    expect(refusal([...ids, [1]]).param).toBe('input');
  });
});
