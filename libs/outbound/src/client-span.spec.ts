import { context, trace } from '@opentelemetry/api';
import { inClientSpan } from './client-span';

describe('inClientSpan', () => {
  it('sends at once with no trace header and makes no span when nothing traces the work', async () => {
    const sent: Readonly<Record<string, string>>[] = [];
    const answer = await inClientSpan(
      { method: 'POST', url: 'http://upstream.test/v1/embeddings', peer: 'upstream' },
      (headers) => {
        sent.push(headers);
        return Promise.resolve('answer');
      },
    );
    expect([answer, sent]).toEqual(['answer', [{}]]);
    expect(trace.getSpan(context.active())).toBeUndefined();
  });
});
