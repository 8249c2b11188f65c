import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import type { ResolvedRoute } from '@gateway/catalog';
import { loadConfig } from '@gateway/common';
import { ProviderError } from '../provider.types';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';

/**
 * The upstream's request id each call answers with (kept for the task record and logs): the `x-request-id` header,
 * else what the body says, as DashScope's compatible mode sends no header but its request id as the `id`.
 */
describe('OpenAiCompatibleProvider request ids', () => {
  let server: Server;
  let provider: OpenAiCompatibleProvider;
  let route: ResolvedRoute;
  /** What the next answer sends: its header id (none when undefined) and its JSON body or SSE events. */
  let answer: { header?: string; json?: unknown; events?: unknown[] };

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        if (answer.header) res.setHeader('x-request-id', answer.header);
        if (answer.events) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const event of answer.events)
            res.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
          return res.end('data: [DONE]\n\n');
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.json));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    route = {
      provider: 'openai-compatible',
      upstream: 'x',
      model: 'm',
      key: 'x:m',
      baseUrl: `http://127.0.0.1:${port}`,
    };
    provider = new OpenAiCompatibleProvider(loadConfig({ MASTER_KEY: 'a'.repeat(64), UPSTREAM_TIMEOUT_MS: 5_000 }));
  });
  afterAll(async () => {
    await provider.onModuleDestroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const chatCall = { request: { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] }, features: [] };
  const completion = (id: string) => ({
    id,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1 },
  });
  const chunks = (id: string) => [
    { id, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'hel' }, finish_reason: null }] },
    { id, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] },
  ];
  const ignore = () => Promise.resolve();
  const open = () => new AbortController().signal;

  it('takes the header over the body id for a chat', async () => {
    answer = { header: 'req_header', json: completion('chatcmpl-body') };
    expect((await provider.chat(route, chatCall)).requestId).toBe('req_header');
  });

  it("takes compatible mode's body id when no header gives one, for chats and embeddings", async () => {
    answer = { json: completion('chatcmpl-6a1c-dashscope') };
    expect((await provider.chat(route, chatCall)).requestId).toBe('chatcmpl-6a1c-dashscope');
    answer = { json: { id: '6a1c-dashscope', object: 'list', data: [{ index: 0, embedding: [1, 0] }] } };
    expect((await provider.embed(route, { input: ['a'] })).requestId).toBe('6a1c-dashscope');
  });

  it("records a streamed chat by its header, else by its chunks' id", async () => {
    answer = { header: 'req_stream', events: chunks('chatcmpl-chunk') };
    expect((await provider.streamChat(route, chatCall, ignore, open())).requestId).toBe('req_stream');
    answer = { events: chunks('chatcmpl-chunk') };
    const streamed = await provider.streamChat(route, chatCall, ignore, open());
    expect([streamed.requestId, streamed.choices[0].message.content]).toEqual(['chatcmpl-chunk', 'hello']);
  });

  it('gives a stream that breaks off the same id, for the failed attempt', async () => {
    const broken = (header?: string) => {
      answer = { header, events: [chunks('chatcmpl-broken')[0], 'not json'] };
      return provider.streamChat(route, chatCall, ignore, open()).catch((error: ProviderError) => error);
    };
    expect(await broken('req_broken')).toMatchObject({ failure: 'retryable', requestId: 'req_broken' });
    expect(await broken()).toMatchObject({ failure: 'retryable', requestId: 'chatcmpl-broken' });
  });

  it("records a passed-through Responses stream by its header, else by its response's id", async () => {
    const response = { id: 'resp_up', object: 'response', status: 'completed', output: [], usage: null };
    const events = [
      { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress' } },
      { type: 'response.completed', sequence_number: 1, response },
    ];
    const call = { ...chatCall, responses: { input: 'hi', store: false } } as Parameters<
      OpenAiCompatibleProvider['streamRespond']
    >[1];
    answer = { header: 'req_responses', events };
    expect((await provider.streamRespond(route, call, ignore, open())).requestId).toBe('req_responses');
    answer = { events };
    expect((await provider.streamRespond(route, call, ignore, open())).requestId).toBe('resp_up');
  });
});
