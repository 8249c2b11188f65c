import { GatewayError } from '@gateway/common';
import { encode } from 'gpt-tokenizer/cjs/encoding/cl100k_base';
import { OPENAI_MAX_REQUEST_TOKENS, readEmbeddingInputs } from './embedding-inputs';

const rules = { maxInputs: 2048, maxInputTokens: 8192 };

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
  it('takes a string and an array of strings; texts too short to reach a limit are estimated, not counted', () => {
    // 'tiktoken is great!' is 6 cl100k tokens and 3 words: the estimate of a text that cannot reach the limit.
    expect(readEmbeddingInputs('hello world', rules)).toEqual({ texts: ['hello world'], tokens: 2 });
    expect(readEmbeddingInputs(['hello world', 'tiktoken is great!'], rules)).toEqual({
      texts: ['hello world', 'tiktoken is great!'],
      tokens: 5,
    });
  });

  it('counts cl100k tokens once a text could reach a limit', () => {
    const tight = { ...rules, maxInputTokens: 50 };
    expect(readEmbeddingInputs(['tiktoken is great!'], tight)).toEqual({ texts: ['tiktoken is great!'], tokens: 6 });
  });

  it('decodes an array of token ids as one input, and an array of token-id arrays as many', () => {
    expect(readEmbeddingInputs(encode('hello world'), rules)).toEqual({ texts: ['hello world'], tokens: 2 });
    const texts = ['The cat sleeps.', '你好, world', 'naïve café'];
    expect(
      readEmbeddingInputs(
        texts.map((text) => encode(text)),
        rules,
      ),
    ).toEqual({
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
    const { param, message } = refusal(['a', 'b', 'c'], { maxInputs: 2, maxInputTokens: 0 });
    expect(param).toBe('input');
    expect(message).toContain('at most 2');
  });

  it('refuses an input longer than the model takes, counted in cl100k tokens', () => {
    // 9,000 words are 9,000 tokens; as text it is 45,000 characters.
    const long = 'word '.repeat(9000).trim();
    expect(refusal(['ok', long])).toEqual({ param: 'input[1]', message: 'input[1] is longer than 8192 tokens' });
    expect(refusal([[1], encode(long)]).param).toBe('input[1]');
    expect(refusal(encode(long)).param).toBe('input');
    // 8,192 tokens exactly pass.
    const atLimit = 'word '.repeat(8192).trim();
    expect(readEmbeddingInputs([atLimit], rules).tokens).toBe(8192);
    // A text of few characters can hold many tokens: three per character here.
    expect(refusal('鬱'.repeat(3), { maxInputs: 1, maxInputTokens: 8 }).param).toBe('input');
  });

  it(`refuses more than ${OPENAI_MAX_REQUEST_TOKENS} tokens in one request`, () => {
    const chunk = 'word '.repeat(7500).trim();
    const fits = Array<string>(OPENAI_MAX_REQUEST_TOKENS / 7500).fill(chunk);
    expect(readEmbeddingInputs(fits, rules).tokens).toBe(OPENAI_MAX_REQUEST_TOKENS);
    expect(refusal([...fits, 'one more'])).toEqual({
      param: 'input',
      message: `input holds more than ${OPENAI_MAX_REQUEST_TOKENS} tokens in all`,
    });
    const ids = fits.map(() => encode(chunk));
    expect(refusal([...ids, [1]]).param).toBe('input');
  });
});
