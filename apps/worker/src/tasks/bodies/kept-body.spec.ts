import { KEPT_BODY_MAX_CHARS, keptBody } from './kept-body';

describe('keptBody: what is stored of a body', () => {
  const png = Buffer.alloc(3_000, 7).toString('base64');

  it('replaces a data URL, wherever it sits in a string, by its media type and size', () => {
    const json = JSON.stringify({
      image_url: { url: `data:image/png;base64,${png}` },
      text: `see ![chart](data:image/jpeg;name=a.jpg;base64,${png}) above`,
    });
    const kept = keptBody(json);
    expect(JSON.parse(kept.text)).toEqual({
      image_url: { url: '[image/png data URL not kept: 3,000 bytes]' },
      text: 'see ![chart]([image/jpeg data URL not kept: 3,000 bytes]) above',
    });
    expect(kept).toMatchObject({ truncated: false, chars: kept.text.length });
  });

  it('replaces a long string of base64, and leaves short ones and ordinary text alone', () => {
    const json = JSON.stringify({ b64_json: png, id: 'abc123', input: 'lorem '.repeat(500) });
    expect(JSON.parse(keptBody(json).text)).toEqual({
      b64_json: '[base64 not kept: 3,000 bytes]',
      id: 'abc123',
      input: 'lorem '.repeat(500),
    });
  });

  it('cuts a long body at the cap, never inside a surrogate pair', () => {
    const json = JSON.stringify({ text: 'x'.repeat(KEPT_BODY_MAX_CHARS - 10) + '😀'.repeat(100) });
    const kept = keptBody(json);
    expect(kept).toMatchObject({ truncated: true, chars: json.length });
    expect(kept.text.length).toBeLessThanOrEqual(KEPT_BODY_MAX_CHARS);
    expect(kept.text.length).toBeGreaterThanOrEqual(KEPT_BODY_MAX_CHARS - 1);
    expect(Buffer.from(kept.text, 'utf8').toString('utf8')).toBe(kept.text);
  });
});
