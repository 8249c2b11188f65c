import { failureFromResponse, readErrorBody } from './http-failure';

const dashScope = (code: string, message = 'm') => JSON.stringify({ request_id: 'r-1', code, message });

describe('failureFromResponse', () => {
  it.each([
    [400, dashScope('InvalidParameter'), 'request'],
    [400, dashScope('DataInspectionFailed'), 'request'],
    [422, '{"error":{"message":"bad"}}', 'request'],
    [401, dashScope('InvalidApiKey'), 'route'],
    [403, '', 'route'],
    [404, '{"error":{"message":"no such model"}}', 'route'],
    [400, dashScope('Arrearage'), 'route'],
    [400, dashScope('Throttling.AllocationQuota'), 'retryable'],
    [429, dashScope('Throttling.RateQuota'), 'retryable'],
    [500, dashScope('InternalError'), 'retryable'],
    [502, '<html>bad gateway</html>', 'retryable'],
  ])('classifies HTTP %i with body %s as %s', (status, body, failure) => {
    expect(failureFromResponse(status, body, undefined)).toMatchObject({ failure, status });
  });

  it('keeps a numeric Retry-After and ignores an unreadable one', () => {
    expect(failureFromResponse(429, '', '7').retryAfter).toBe(7);
    expect(failureFromResponse(429, '', 'Wed, 21 Oct 2015 07:28:00 GMT').retryAfter).toBeUndefined();
  });

  it('falls back to the status when the body says nothing', () => {
    expect(failureFromResponse(503, 'Service Unavailable', undefined).message).toBe('upstream answered HTTP 503');
  });
});

describe('readErrorBody', () => {
  it('reads OpenAI and DashScope error bodies', () => {
    expect(readErrorBody('{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}')).toEqual({
      code: 'rate_limit_exceeded',
      message: 'Rate limit reached',
    });
    expect(readErrorBody(dashScope('DataInspectionFailed', 'Input data may contain inappropriate content.'))).toEqual({
      code: 'DataInspectionFailed',
      message: 'DataInspectionFailed: Input data may contain inappropriate content.',
    });
    expect(readErrorBody('{"error":"model not loaded"}')).toEqual({ message: 'model not loaded' });
  });

  it('redacts echoed keys and bounds the message', () => {
    expect(
      readErrorBody('{"error":{"message":"Incorrect API key provided: sk-proj-abc***xyz. See docs."}}').message,
    ).toBe('Incorrect API key provided: [redacted key] See docs.');
    expect(readErrorBody(JSON.stringify({ message: 'x'.repeat(1000) })).message).toHaveLength(301);
  });
});
