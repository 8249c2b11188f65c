import { ProviderError } from '../provider.types';
import { couldNotFetchInput, inlineReason, MAX_UPSTREAM_IMAGE_BYTES, UrlCandidate } from './dashscope-image-rules';

const NOW = Date.parse('2026-01-01T00:00:00Z');
/** What a job's calls need from now: the margin the adapter asks a signed URL to outlast. */
const NEEDED_UNTIL = NOW + 10 * 60_000;

const reachable: UrlCandidate = {
  url: 'https://images.example.com/cat.png',
  reach: { direct: true, publicHost: true, declaredLength: true },
  sourceBytes: 1_000_000,
  width: 1024,
  height: 768,
};

describe('inlineReason: whether DashScope may be sent the caller’s URL', () => {
  it('passes a URL the worker fetched directly from a public host, sized, in ASCII, within the limits', () => {
    expect(inlineReason(reachable, NEEDED_UNTIL)).toBeUndefined();
  });

  it.each<[string, Partial<UrlCandidate>, string]>([
    ['an input not given as a URL', { url: undefined }, 'not given as a URL the worker fetched'],
    ['a URL without fetch facts', { reach: undefined }, 'not given as a URL the worker fetched'],
    ['a redirect', { reach: { ...reachable.reach!, direct: false } }, 'fetched through a redirect'],
    [
      'a private or allow-listed host',
      { reach: { ...reachable.reach!, publicHost: false } },
      'not on a public address, or reached through the allow-list',
    ],
    [
      'an answer without Content-Length',
      { reach: { ...reachable.reach!, declaredLength: false } },
      'answered without a Content-Length',
    ],
    ['raw non-ASCII in the path', { url: 'https://images.example.com/猫.png' }, 'not in ASCII form'],
    ['an IDN host not in punycode', { url: 'https://bücher.example/cat.png' }, 'not in ASCII form'],
    ['a space', { url: 'https://images.example.com/a cat.png' }, 'not in ASCII form'],
    ['a file over 10 MB', { sourceBytes: MAX_UPSTREAM_IMAGE_BYTES + 1 }, 'larger than the per-image limit'],
    ['a side under 384', { width: 383 }, 'sides outside 384–3072'],
    ['a side over 3072', { height: 3073 }, 'sides outside 384–3072'],
    [
      'an OSS signature that expires before the calls can end',
      { url: `https://b.oss-cn-beijing.aliyuncs.com/cat.png?Expires=${(NEEDED_UNTIL - 1000) / 1000}&Signature=s` },
      'its signature expires before the call can end',
    ],
    [
      'an S3 signature that expires before the calls can end',
      { url: 'https://b.s3.amazonaws.com/cat.png?X-Amz-Date=20251231T235500Z&X-Amz-Expires=600&X-Amz-Signature=s' },
      'its signature expires before the call can end',
    ],
  ])('sends bytes for %s', (_, change, reason) => {
    expect(inlineReason({ ...reachable, ...change }, NEEDED_UNTIL)).toBe(reason);
  });

  it('passes a punycode IDN host and percent-encoded non-ASCII, which are ASCII', () => {
    const url = 'https://xn--bcher-kva.example/%E7%8C%AB.png';
    expect(inlineReason({ ...reachable, url }, NEEDED_UNTIL)).toBeUndefined();
  });

  it('passes sides exactly at 384 and 3072', () => {
    expect(inlineReason({ ...reachable, width: 384, height: 3072 }, NEEDED_UNTIL)).toBeUndefined();
  });

  it('passes a signed URL valid past what the calls need', () => {
    const url = `https://b.oss-cn-beijing.aliyuncs.com/cat.png?Expires=${NEEDED_UNTIL / 1000 + 1}&Signature=s`;
    expect(inlineReason({ ...reachable, url }, NEEDED_UNTIL)).toBeUndefined();
  });
});

describe('couldNotFetchInput', () => {
  const failure = (code: string, message = `${code}: x`) => new ProviderError(message, 'request', 400, { code });

  it.each(['InvalidURL', 'InvalidURL.Timeout', 'BadRequest.InputDownloadFailed'])('is true for %s', (code) => {
    expect(couldNotFetchInput(failure(code))).toBe(true);
  });

  it('is true for InternalError.Algo about a missing Content-Length, and false for another', () => {
    const missing = 'the upstream could not fetch an input file: Missing Content-Length of multimodal url.';
    expect(couldNotFetchInput(failure('InternalError.Algo', missing))).toBe(true);
    expect(couldNotFetchInput(failure('InternalError.Algo', 'Range of top_p should be (0.0, 1.0]'))).toBe(false);
  });

  it.each(['InvalidParameter', 'DataInspectionFailed', 'BadRequest.UnsupportedFileFormat'])(
    'is false for %s',
    (code) => {
      expect(couldNotFetchInput(failure(code))).toBe(false);
    },
  );
});
