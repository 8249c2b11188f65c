import { GatewayError } from '@gateway/common';
import { refusalFilter, requestsExport, taskFilter } from './request-filters';

function refusal(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('taskFilter', () => {
  it('reads no filter as none, and each parameter as its field', () => {
    expect(taskFilter({ from: '2025-01-01', limit: '20' })).toBeUndefined();
    expect(taskFilter({ model: 'text-embedding-v4' })).toEqual({ field: 'model', value: 'text-embedding-v4' });
    expect(taskFilter({ status: 'failed' })).toEqual({ field: 'status', value: 'failed' });
    expect(taskFilter({ code: 'UpstreamError' })).toEqual({ field: 'code', value: 'UpstreamError' });
    expect(taskFilter({ key_id: 'key_abc123' })).toEqual({ field: 'key', value: 'key_abc123' });
    expect(taskFilter({ key_id: 'signature' })).toEqual({ field: 'key', value: 'signature' });
    expect(taskFilter({ mode: 'async' })).toEqual({ field: 'mode', value: 'async' });
  });

  it.each([
    [{ model: '' }, 'model'],
    [{ model: 'a|b' }, 'model'],
    [{ model: 'x'.repeat(201) }, 'model'],
    [{ status: 'queued' }, 'status'],
    [{ code: 'upstream_error' }, 'code'],
    [{ key_id: 'sk-123' }, 'key_id'],
    [{ mode: 'stream' }, 'mode'],
    [{ model: 'x-chat', code: 'Timeout' }, 'code'],
  ])('refuses %j with 400 InvalidParameter naming %s', (query, param) => {
    const error = refusal(() => taskFilter(query));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'InvalidParameter', param });
  });
});

describe('refusalFilter', () => {
  it('combines every filter given, the day range only when asked for', () => {
    expect(refusalFilter({ limit: '50' })).toEqual({});
    expect(
      refusalFilter({
        from: '2025-01-01',
        to: '2025-01-31',
        model: 'x-chat',
        code: 'RateLimited',
        status: '429',
        key_id: 'key_a',
        mode: 'sync',
      }),
    ).toEqual({
      from: '2025-01-01',
      to: '2025-01-31',
      model: 'x-chat',
      code: 'RateLimited',
      status: 429,
      keyId: 'key_a',
      async: false,
    });
  });

  it.each([
    [{ status: '500' }, 'status'],
    [{ status: '4e2' }, 'status'],
    [{ mode: 'both' }, 'mode'],
    [{ from: '2025-02-30' }, 'from'],
    [{ from: '2025-03-01', to: '2025-02-01' }, 'from'],
  ])('refuses %j with 400 InvalidParameter naming %s', (query, param) => {
    expect(refusal(() => refusalFilter(query))).toMatchObject({ code: 'InvalidParameter', param });
  });
});

describe('requestsExport', () => {
  it('gives the refused calls the same filter, and leaves them out under a task status', () => {
    expect(requestsExport({ from: '2025-01-01', to: '2025-01-31', key_id: 'key_a' })).toEqual({
      from: '2025-01-01',
      to: '2025-01-31',
      taskFilter: { field: 'key', value: 'key_a' },
      refusalFilter: { keyId: 'key_a' },
      calls: 'all',
    });
    expect(requestsExport({ to: '2025-01-31', mode: 'async', calls: 'refused' })).toMatchObject({
      refusalFilter: { async: true },
      calls: 'refused',
    });
    expect(requestsExport({ to: '2025-01-31', status: 'failed' })).toMatchObject({ refusalFilter: {}, calls: 'tasks' });
  });

  it('refuses an unknown `calls` with 400 InvalidParameter', () => {
    expect(refusal(() => requestsExport({ calls: 'some' }))).toMatchObject({
      code: 'InvalidParameter',
      param: 'calls',
    });
  });
});
