import { encode } from 'gpt-tokenizer/cjs/encoding/cl100k_base';
import { cl100kTokens, cl100kTokensWithin, decodeCl100k, isCl100kToken } from './cl100k';

describe('cl100k_base', () => {
  it('counts tokens as OpenAI does, not one per word', () => {
    expect(cl100kTokens('hello world')).toBe(2);
    // OpenAI cookbook, "How to count tokens with tiktoken": 6 tokens.
    expect(cl100kTokens('tiktoken is great!')).toBe(6);
    expect(cl100kTokens('你好')).toBe(2);
  });

  it('counts special-token text as ordinary text instead of refusing it', () => {
    expect(cl100kTokens('<|endoftext|>')).toBe(7);
  });

  it('counts within a limit, and stops past it', () => {
    expect(cl100kTokensWithin('hello world', 2)).toBe(2);
    const hundred = 'word '.repeat(100).trim();
    expect(cl100kTokensWithin(hundred, 99)).toBeUndefined();
    expect(cl100kTokensWithin(hundred, 100)).toBe(100);
    // One UTF-16 code unit, three tokens: a text can hold more tokens than code units.
    expect(cl100kTokens('鬱')).toBe(3);
    expect(cl100kTokensWithin('鬱鬱', 5)).toBeUndefined();
    expect(cl100kTokensWithin('鬱鬱', 6)).toBe(6);
  });

  it('takes the ordinary vocabulary only', () => {
    expect([0, 100255].every(isCl100kToken)).toBe(true);
    expect(decodeCl100k([100255])).not.toBe('');
    // 100256 is unused, 100257 is <|endoftext|>.
    expect([-1, 1.5, 100256, 100257, '5', null].some(isCl100kToken)).toBe(false);
  });

  it('decodes token ids back to the text they encode', () => {
    for (const text of ['hello world', 'naïve café, 你好, 𝕏 and emoji 🙂', '  spaced\nlines\t']) {
      expect(decodeCl100k(encode(text))).toBe(text);
    }
  });

  it('decodes a character cut between two inputs as U+FFFD without spilling into the next input', () => {
    const [first, ...rest] = encode('𝕏');
    expect(rest.length).toBeGreaterThan(0);
    expect(decodeCl100k([first])).toBe('\uFFFD');
    expect(decodeCl100k(encode('hello'))).toBe('hello');
    expect(decodeCl100k(rest)).toBe('\uFFFD'.repeat(rest.length));
    expect(decodeCl100k([first, ...rest])).toBe('𝕏');
    expect(decodeCl100k([...encode('a'), first, ...encode('b')])).toBe('a\uFFFDb');
  });
});
