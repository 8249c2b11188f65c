import { errors } from 'undici';
import { failureFromNetworkError, failureFromResponse, failureInSuccess, readErrorBody, wasSent } from './http-failure';
import { ProviderError } from './provider.types';

const dashScope = (code: string, message = 'm') => JSON.stringify({ request_id: 'r-1', code, message });
const openAi = (code: string | null, message = 'm') => JSON.stringify({ error: { message, type: 'x', code } });
/** Compatible mode's body: OpenAI's shape, with DashScope's `request_id` beside it. */
const compatible = (code: string, message: string) =>
  JSON.stringify({ error: { message, type: code, param: null, code }, id: 'chatcmpl-1', request_id: 'r-2' });

describe('failureFromResponse', () => {
  it.each([
    [400, dashScope('InvalidParameter'), 'request'],
    [422, '{"error":{"message":"bad"}}', 'request'],
    [401, dashScope('InvalidApiKey'), 'route'],
    [401, openAi('invalid_api_key'), 'route'],
    [403, '', 'route'],
    [403, dashScope('AccessDenied'), 'route'],
    [403, dashScope('Model.AccessDenied'), 'route'],
    [404, '{"error":{"message":"no such model"}}', 'route'],
    [408, '', 'retryable'],
    [408, dashScope('RequestTimeOut'), 'retryable'],
    [400, dashScope('Throttling.AllocationQuota'), 'retryable'],
    [429, dashScope('Throttling.RateQuota'), 'retryable'],
    [429, openAi('rate_limit_exceeded'), 'retryable'],
    [500, dashScope('InternalError'), 'retryable'],
    [502, '<html>bad gateway</html>', 'retryable'],
    [503, dashScope('ModelUnavailable'), 'retryable'],
    [503, dashScope('ServiceUnavailable'), 'retryable'],
  ])('classifies HTTP %i with body %s as %s', (status, body, failure) => {
    expect(failureFromResponse(status, body, undefined)).toMatchObject({ failure, status });
  });

  // The code decides over the status: DashScope answers an overdue bill with 429, OpenAI no credit with 429.
  it.each([
    [400, dashScope('Arrearage')],
    [429, dashScope('PrepaidBillOverdue', 'The prepaid bill is overdue.')],
    [429, dashScope('PostpaidBillOverdue', 'The postpaid bill is overdue.')],
    [429, dashScope('CommodityNotPurchased')],
    [403, dashScope('AllocationQuota.FreeTierOnly')],
    [403, dashScope('AccessDenied.Unpurchased', 'Access to model denied.')],
    [403, dashScope('Workspace.AccessDenied', 'Workspace access denied.')],
    [429, dashScope('Throttling.AllocationQuota', 'Free allocated quota exceeded.')],
    [429, compatible('insufficient_quota', 'Free allocated quota exceeded.')],
    [429, openAi('insufficient_quota')],
  ])('classifies HTTP %i with account code %s as the route’s failure', (status, body) => {
    const error = failureFromResponse(status, body, '5');
    expect(error).toMatchObject({ failure: 'route', status, code: readErrorBody(body).code });
    // Waiting does not cure an unpaid bill: no Retry-After is passed on for it.
    expect(error.retryAfter).toBeUndefined();
  });

  // A TPS/TPM throttle, whatever the word "quota" suggests: retried after the upstream's pause.
  it.each([
    [429, dashScope('Throttling.AllocationQuota', 'Allocated quota exceeded, please increase your quota limit.')],
    [
      429,
      compatible('insufficient_quota', 'You exceeded your current quota, please check your plan and billing details.'),
    ],
    [429, dashScope('LimitRequests', 'You exceeded your current requests list.')],
    [429, compatible('limit_requests', 'You exceeded your current requests list.')],
    [500, dashScope('InternalError.Algo', 'inference internal error.')],
  ])('classifies HTTP %i with throttle or outage code %s as retryable', (status, body) => {
    expect(failureFromResponse(status, body, '3')).toMatchObject({
      failure: 'retryable',
      status,
      code: readErrorBody(body).code,
      retryAfter: 3,
    });
  });

  it.each([
    [
      400,
      dashScope('InternalError.Algo', 'Missing Content-Length of multimodal url.'),
      /fetch an input file.*Content-Length/,
    ],
    [
      500,
      dashScope('InternalError.Algo', 'Missing Content-Length of multimodal url.'),
      /fetch an input file.*Content-Length/,
    ],
    [400, dashScope('InternalError.Algo.InvalidParameter', 'Range of top_p should be (0.0, 1.0]'), /top_p/],
    [
      400,
      dashScope('BadRequest.InputDownloadFailed', 'Failed to download the input file: x.'),
      /could not fetch an input file/,
    ],
    [400, dashScope('InvalidURL', 'Invalid URL provided in your request.'), /could not fetch an input file/],
    [400, dashScope('InvalidURL.Timeout', 'Download x timeout.'), /could not fetch an input file/],
    [
      400,
      dashScope('BadRequest.UnsupportedFileFormat', 'Input file format is not supported.'),
      /format of an input file/,
    ],
    [
      415,
      dashScope('BadRequest.UnsupportedFileFormat', 'Input file format is not supported.'),
      /format of an input file/,
    ],
  ])('classifies HTTP %i with input code %s as the request’s failure, saying so', (status, body, message) => {
    const error = failureFromResponse(status, body, '5');
    expect(error).toMatchObject({ failure: 'request', status, code: readErrorBody(body).code });
    expect(error.message).toMatch(message);
    expect(error.message).toContain(readErrorBody(body).message);
    expect(error.retryAfter).toBeUndefined();
  });

  it.each([
    [400, dashScope('DataInspectionFailed', 'Input data may contain inappropriate content.')],
    [400, openAi('data_inspection_failed')],
    [400, openAi('content_policy_violation')],
  ])('classifies HTTP %i with moderation code %s as a content refusal', (status, body) => {
    expect(failureFromResponse(status, body, undefined)).toMatchObject({
      failure: 'content',
      status,
      code: readErrorBody(body).code,
    });
  });

  it('keeps the message of a moderation refusal with its code', () => {
    expect(
      failureFromResponse(400, dashScope('DataInspectionFailed', 'Input data may contain inappropriate content.'), []),
    ).toMatchObject({ message: 'DataInspectionFailed: Input data may contain inappropriate content.' });
  });

  it('classifies 408 RequestTimeOut as retryable with its Retry-After', () => {
    expect(failureFromResponse(408, dashScope('RequestTimeOut'), '2')).toMatchObject({
      failure: 'retryable',
      status: 408,
      code: 'RequestTimeOut',
      retryAfter: 2,
    });
  });

  it('classifies 503 ModelUnavailable as retryable', () => {
    expect(
      failureFromResponse(503, dashScope('ModelUnavailable', 'Model is unavailable, please try again later.'), '1'),
    ).toMatchObject({
      failure: 'retryable',
      status: 503,
      code: 'ModelUnavailable',
      retryAfter: 1,
      message: 'ModelUnavailable: Model is unavailable, please try again later.',
    });
  });

  it('tells the caller what a 413 or 415 means, as the request’s failure', () => {
    expect(failureFromResponse(413, 'Payload Too Large', undefined)).toMatchObject({
      failure: 'request',
      status: 413,
      message: 'the upstream refused the request as too large (HTTP 413)',
    });
    expect(failureFromResponse(413, dashScope('BadRequest.TooLarge', 'Payload Too Large'), undefined)).toMatchObject({
      failure: 'request',
      status: 413,
      message: 'the upstream refused the request as too large (HTTP 413): BadRequest.TooLarge: Payload Too Large',
    });
    expect(failureFromResponse(415, '', undefined)).toMatchObject({
      failure: 'request',
      status: 415,
      message: "the upstream refused the request body's media type (HTTP 415)",
    });
    expect(
      failureFromResponse(415, dashScope('UnsupportedMediaType', 'The request Content-Type is not supported.'), []),
    ).toMatchObject({
      failure: 'request',
      message:
        "the upstream refused the request body's media type (HTTP 415): UnsupportedMediaType: The request Content-Type is not supported.",
    });
  });

  it('keeps a numeric Retry-After and ignores an unreadable one', () => {
    expect(failureFromResponse(429, '', '7').retryAfter).toBe(7);
    expect(failureFromResponse(429, '', ['4', '9']).retryAfter).toBe(4);
    expect(failureFromResponse(429, '', 'Wed, 21 Oct 2015 07:28:00 GMT').retryAfter).toBeUndefined();
    expect(failureFromResponse(429, '', '-1').retryAfter).toBeUndefined();
  });

  it('falls back to the status when the body says nothing', () => {
    expect(failureFromResponse(503, 'Service Unavailable', undefined).message).toBe('upstream answered HTTP 503');
  });

  it('reads the request id from the body’s request_id, else from the header', () => {
    expect(failureFromResponse(400, dashScope('InvalidParameter'), undefined).requestId).toBe('r-1');
    // The body's id is the upstream's own record of the call: it wins over a proxy's header.
    expect(failureFromResponse(400, dashScope('InvalidParameter'), undefined, 'req-header').requestId).toBe('r-1');
    expect(failureFromResponse(429, openAi('rate_limit_exceeded'), undefined, 'req_abc123').requestId).toBe(
      'req_abc123',
    );
    expect(failureFromResponse(500, '', undefined, ['req_first', 'req_second']).requestId).toBe('req_first');
    expect(failureFromResponse(500, '', undefined, '').requestId).toBeUndefined();
    expect(failureFromResponse(500, '', undefined).requestId).toBeUndefined();
  });
});

describe('failureInSuccess', () => {
  it('treats a 200 answer with an error code and no output as a failure, classified by its code', () => {
    const overdue = failureInSuccess(200, { request_id: 'r-200', code: 'Arrearage', message: 'Access denied.' });
    expect(overdue).toBeInstanceOf(ProviderError);
    expect(overdue).toMatchObject({
      failure: 'route',
      status: 200,
      code: 'Arrearage',
      requestId: 'r-200',
      message: 'Arrearage: Access denied.',
    });
    expect(failureInSuccess(200, { code: 'DataInspectionFailed', message: 'm' })).toMatchObject({
      failure: 'content',
      status: 200,
    });
    expect(failureInSuccess(200, { code: 'Throttling.RateQuota' })).toMatchObject({
      failure: 'retryable',
      status: 200,
    });
  });

  it('takes a 200 failure with a code it does not know as the route’s, not the request’s', () => {
    // An unknown code on a 200 is no proof nothing was made: the route is abandoned, not the request.
    expect(failureInSuccess(200, { code: 'InvalidParameter', message: 'm' })).toMatchObject({
      failure: 'route',
      status: 200,
      code: 'InvalidParameter',
    });
  });

  it('leaves a genuine answer alone', () => {
    expect(failureInSuccess(200, { output: { choices: [] }, request_id: 'r' })).toBeUndefined();
    expect(failureInSuccess(200, { code: 'Arrearage', output: { choices: [] } })).toBeUndefined();
    expect(failureInSuccess(200, { code: '' })).toBeUndefined();
    expect(failureInSuccess(200, { code: 42 })).toBeUndefined();
    expect(failureInSuccess(200, { data: [] })).toBeUndefined();
    expect(failureInSuccess(200, null)).toBeUndefined();
    expect(failureInSuccess(200, [])).toBeUndefined();
    expect(failureInSuccess(200, 'ok')).toBeUndefined();
  });
});

describe('failureFromNetworkError and wasSent', () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it('keeps the network error’s code and says whether the upstream may have received the request', () => {
    const refused = failureFromNetworkError(withCode('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'));
    expect(refused).toMatchObject({
      failure: 'retryable',
      code: 'ECONNREFUSED',
      message: 'upstream unreachable: connect ECONNREFUSED 127.0.0.1:1',
    });
    expect(refused.status).toBeUndefined();
    expect(wasSent(refused)).toBe(false);
    for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])
      expect(wasSent(failureFromNetworkError(withCode('x', code)))).toBe(false);

    const reset = failureFromNetworkError(withCode('other side closed', 'UND_ERR_SOCKET'));
    expect(reset).toMatchObject({ failure: 'retryable', code: 'UND_ERR_SOCKET' });
    expect(wasSent(reset)).toBe(true);
  });

  it('reports timeouts as such, sent', () => {
    const headers = failureFromNetworkError(new errors.HeadersTimeoutError());
    expect(headers).toMatchObject({ failure: 'retryable', message: 'upstream timed out' });
    expect(wasSent(headers)).toBe(true);
    const aborted = failureFromNetworkError(
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    );
    expect(aborted).toMatchObject({ failure: 'retryable', message: 'upstream timed out' });
    expect(wasSent(aborted)).toBe(true);
  });

  it('counts any answered call as sent', () => {
    expect(wasSent(failureFromResponse(400, dashScope('InvalidParameter'), undefined))).toBe(true);
    expect(wasSent(new ProviderError('x', 'retryable', 500, { code: 'ECONNREFUSED' }))).toBe(true);
  });

  it('redacts a key echoed in a network error', () => {
    expect(failureFromNetworkError(new Error('bad header Bearer abc.def-123')).message).toBe(
      'upstream unreachable: bad header Bearer [redacted]',
    );
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
      requestId: 'r-1',
    });
    expect(readErrorBody('{"error":"model not loaded"}')).toEqual({ message: 'model not loaded' });
    expect(readErrorBody('not json')).toEqual({});
  });

  it('bounds the request id it reads', () => {
    expect(readErrorBody(JSON.stringify({ request_id: 'r'.repeat(500), code: 'X' })).requestId).toHaveLength(128);
    expect(readErrorBody(JSON.stringify({ request_id: 7, code: 'X' })).requestId).toBeUndefined();
  });

  it('redacts echoed keys and bounds the message', () => {
    expect(
      readErrorBody('{"error":{"message":"Incorrect API key provided: sk-proj-abc***xyz. See docs."}}').message,
    ).toBe('Incorrect API key provided: [redacted key] See docs.');
    expect(readErrorBody(JSON.stringify({ message: 'x'.repeat(1000) })).message).toHaveLength(301);
  });
});
