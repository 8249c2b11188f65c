import { countMessageTokens, countTokens, tokenize } from './token-estimate';

describe('token estimate', () => {
  it('counts each CJK character as a token', () => {
    expect(tokenize('你好 world')).toEqual(['你', '好', 'world']);
    expect(countTokens('')).toBe(1);
  });

  it('adds up the messages of a chat request', () => {
    expect(
      countMessageTokens([
        { role: 'user', content: 'Hello there' },
        { role: 'assistant', content: '你好' },
      ]),
    ).toBe(4);
  });
});
