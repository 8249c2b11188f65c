import sharp from 'sharp';
import { dataUri, editBody, halvesPng, solidPng } from '../helpers/images';
import { createApplication, postJson, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';

const PLUS = 'x-image-edit-plus';
const BASE = 'x-image-edit';

describe('POST /v1/images/edits: request rules (docs/contracts.md, "Image edit")', () => {
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let image: string;

  beforeAll(async () => {
    const env = testEnv();
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
    image = dataUri(await halvesPng(64, 48, [255, 0, 0], [0, 0, 255]));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
  });

  const edit = (body: unknown) => postJson(`${api.url}/v1/images/edits`, body, apiKey);

  async function expectRefused(body: unknown, code: string, param: string) {
    const response = await edit(body);
    expect({ status: response.status, code: response.body.error?.code, param: response.body.error?.param }).toEqual({
      status: 400,
      code,
      param,
    });
    expect(response.body.request_id).toMatch(/^req_/);
    return response;
  }

  it('accepts a minimal single-image edit', async () => {
    const response = await edit(editBody(PLUS, [image], 'grayscale'));
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(1);
  });

  it('needs exactly one message', async () => {
    const one = editBody(PLUS, [image], 'grayscale').input.messages[0];
    await expectRefused({ model: PLUS, input: { messages: [one, one] } }, 'InvalidParameter', 'input.messages');
    await expectRefused({ model: PLUS, input: { messages: [] } }, 'InvalidParameter', 'input.messages');
  });

  it('needs the role user', async () => {
    const body = editBody(PLUS, [image], 'grayscale');
    body.input.messages[0].role = 'assistant';
    await expectRefused(body, 'InvalidParameter', 'input.messages[0].role');
  });

  it('needs each content item to carry exactly one of image or text', async () => {
    const both = {
      model: PLUS,
      input: { messages: [{ role: 'user', content: [{ image, text: 'grayscale' }, { text: 'x' }] }] },
    };
    await expectRefused(both, 'InvalidParameter', 'input.messages[0].content[0]');
    const neither = { model: PLUS, input: { messages: [{ role: 'user', content: [{ image }, {}, { text: 'x' }] }] } };
    await expectRefused(neither, 'InvalidParameter', 'input.messages[0].content[1]');
  });

  it('needs 1 to 3 images', async () => {
    await expectRefused(editBody(PLUS, [], 'grayscale'), 'InvalidParameter', 'input.messages[0].content');
    await expectRefused(
      editBody(PLUS, [image, image, image, image], 'grayscale'),
      'InvalidParameter',
      'input.messages[0].content',
    );
  });

  it('needs exactly one text', async () => {
    const noText = { model: PLUS, input: { messages: [{ role: 'user', content: [{ image }] }] } };
    await expectRefused(noText, 'InvalidParameter', 'input.messages[0].content');
    const twoTexts = {
      model: PLUS,
      input: { messages: [{ role: 'user', content: [{ image }, { text: 'a' }, { text: 'b' }] }] },
    };
    await expectRefused(twoTexts, 'InvalidParameter', 'input.messages[0].content');
  });

  it('cuts a text over 800 code points (not UTF-16 units) and shows the cut in revised_prompt', async () => {
    // 799 Chinese characters plus an emoji (two UTF-16 units) make exactly 800 code points; what follows is cut.
    const kept = '黑'.repeat(799) + '😀';
    const response = await edit(editBody(PLUS, [image], `${kept}CUT-THIS`, { prompt_extend: false }));
    expect(response.status).toBe(200);
    const revised: string = response.body.data[0].revised_prompt;
    expect(revised.startsWith(kept)).toBe(true);
    expect(revised).not.toContain('CUT');
  });

  it('cuts a negative_prompt over 500 code points instead of refusing it', async () => {
    const response = await edit(editBody(PLUS, [image], 'grayscale', { negative_prompt: 'n'.repeat(5000) }));
    expect(response.status).toBe(200);
  });

  it('allows n from 1 to 6 for the plus family', async () => {
    const six = await edit(editBody(PLUS, [image], 'invert', { n: 6 }));
    expect(six.status).toBe(200);
    expect(six.body.data).toHaveLength(6);
    await expectRefused(editBody(PLUS, [image], 'invert', { n: 7 }), 'InvalidParameter', 'parameters.n');
    await expectRefused(editBody(PLUS, [image], 'invert', { n: 0 }), 'InvalidParameter', 'parameters.n');
    await expectRefused(editBody(PLUS, [image], 'invert', { n: 1.5 }), 'InvalidParameter', 'parameters.n');
  });

  it('allows only n = 1 for x-image-edit', async () => {
    expect((await edit(editBody(BASE, [image], 'invert', { n: 1 }))).status).toBe(200);
    await expectRefused(editBody(BASE, [image], 'invert', { n: 2 }), 'UnsupportedParameter', 'parameters.n');
  });

  it('takes size W*H with sides 512 to 2048, for the plus family only', async () => {
    const sized = await edit(editBody(PLUS, [image], 'invert', { size: '640*512' }));
    expect(sized.status).toBe(200);
    await expectRefused(editBody(PLUS, [image], 'invert', { size: '511*1024' }), 'InvalidParameter', 'parameters.size');
    await expectRefused(
      editBody(PLUS, [image], 'invert', { size: '1024*2049' }),
      'InvalidParameter',
      'parameters.size',
    );
    await expectRefused(
      editBody(PLUS, [image], 'invert', { size: '1024x1024' }),
      'InvalidParameter',
      'parameters.size',
    );
    await expectRefused(
      editBody(BASE, [image], 'invert', { size: '1024*1024' }),
      'UnsupportedParameter',
      'parameters.size',
    );
  });

  it('takes prompt_extend for the plus family only', async () => {
    expect((await edit(editBody(PLUS, [image], 'invert', { prompt_extend: true }))).status).toBe(200);
    await expectRefused(
      editBody(BASE, [image], 'invert', { prompt_extend: true }),
      'UnsupportedParameter',
      'parameters.prompt_extend',
    );
    await expectRefused(
      editBody(PLUS, [image], 'invert', { prompt_extend: 'yes' }),
      'InvalidParameter',
      'parameters.prompt_extend',
    );
  });

  it('takes seed from 0 to 2147483647', async () => {
    expect((await edit(editBody(PLUS, [image], 'invert', { seed: 0 }))).status).toBe(200);
    expect((await edit(editBody(PLUS, [image], 'invert', { seed: 2147483647 }))).status).toBe(200);
    await expectRefused(editBody(PLUS, [image], 'invert', { seed: 2147483648 }), 'InvalidParameter', 'parameters.seed');
    await expectRefused(editBody(PLUS, [image], 'invert', { seed: -1 }), 'InvalidParameter', 'parameters.seed');
  });

  it('takes watermark as a boolean', async () => {
    expect((await edit(editBody(PLUS, [image], 'invert', { watermark: false }))).status).toBe(200);
    await expectRefused(
      editBody(PLUS, [image], 'invert', { watermark: 'no' }),
      'InvalidParameter',
      'parameters.watermark',
    );
  });

  it('refuses an unknown model and a model of another capability', async () => {
    await expectRefused(editBody('x-image-edit-pro', [image], 'invert'), 'ModelNotFound', 'model');
    await expectRefused(editBody('text-embedding-v4', [image], 'invert'), 'ModelNotFound', 'model');
  });

  it('refuses parameters the API does not have, and unknown fields', async () => {
    await expectRefused(editBody(PLUS, [image], 'invert', { style: 'anime' }), 'InvalidParameter', 'parameters.style');
    await expectRefused({ ...editBody(PLUS, [image], 'invert'), extra: 1 }, 'InvalidParameter', 'extra');
  });

  describe('images', () => {
    const param = 'input.messages[0].content[1].image';
    /** The image second, so the param names its real position. */
    const withImageAt1 = (value: string) => ({
      model: PLUS,
      input: { messages: [{ role: 'user', content: [{ image }, { image: value }, { text: 'side by side' }] }] },
    });

    it('accepts every listed format by its bytes, whatever the data URI says', async () => {
      const base = sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } });
      const encoded = await Promise.all([
        base.clone().jpeg().toBuffer(),
        base.clone().webp().toBuffer(),
        base.clone().tiff().toBuffer(),
        base.clone().gif().toBuffer(),
      ]);
      for (const bytes of encoded) {
        const response = await edit(withImageAt1(dataUri(bytes, 'image/png')));
        expect(response.status).toBe(200);
      }
      // Raw base64 without a data URI prefix.
      expect((await edit(withImageAt1(encoded[0].toString('base64')))).status).toBe(200);
    });

    it('refuses an unsupported format, naming the image', async () => {
      const pdf = Buffer.from('%PDF-1.7\n1 0 obj << >> endobj\n%%EOF');
      const response = await expectRefused(withImageAt1(dataUri(pdf, 'image/png')), 'InvalidImage', param);
      expect(response.body.error.message).toContain(param);
    });

    it('refuses undecodable image data', async () => {
      const png = await solidPng(64, 64, [1, 2, 3]);
      await expectRefused(withImageAt1(dataUri(png.subarray(0, 60))), 'InvalidImage', param);
    });

    it('refuses invalid base64', async () => {
      await expectRefused(withImageAt1('data:image/png;base64,@@@not-base64@@@'), 'InvalidImage', param);
    });

    it('refuses an image over 10 MB', async () => {
      const big = Buffer.alloc(10 * 1024 * 1024 + 1, 0);
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(big);
      await expectRefused(withImageAt1(big.toString('base64')), 'InvalidImage', param);
    });

    it('refuses a decompression bomb by its pixel count', async () => {
      const bomb = await sharp({
        create: { width: 9000, height: 6000, channels: 3, background: '#000' },
        limitInputPixels: false,
      })
        .png({ compressionLevel: 9 })
        .toBuffer();
      expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
      await expectRefused(withImageAt1(dataUri(bomb)), 'InvalidImage', param);
    });

    it('refuses URLs that are not http(s)', async () => {
      await expectRefused(withImageAt1('ftp://example.com/a.png'), 'InvalidImage', param);
      await expectRefused(withImageAt1('file:///etc/passwd'), 'InvalidImage', param);
    });
  });
});
