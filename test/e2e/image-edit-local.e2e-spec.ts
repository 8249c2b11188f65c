import { dataUri, download, editBody, halvesPng, noisyPng, pixelsOf, solidPng } from '../helpers/images';
import { createApplication, getJson, postJson, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';

const PLUS = 'x-image-edit-plus';

/** The embedded local engine end to end: request → job → sharp edit → GridFS → signed URL → pixels. */
describe('POST /v1/images/edits through the local engine', () => {
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;

  beforeAll(async () => {
    const env = testEnv();
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
  });

  async function editAndFetch(images: Buffer[], text: string, parameters?: Record<string, unknown>) {
    const response = await postJson(
      `${api.url}/v1/images/edits`,
      editBody(
        PLUS,
        images.map((png) => dataUri(png)),
        text,
        parameters,
      ),
      apiKey,
    );
    expect(response.status).toBe(200);
    const outputs = await Promise.all(
      response.body.data.map(async (item: { url: string }) => {
        const file = await download(item.url);
        expect(file.status).toBe(200);
        expect(file.type).toBe('image/png');
        return file.bytes;
      }),
    );
    return { body: response.body, outputs: outputs as Buffer[], taskId: response.headers.get('x-task-id')! };
  }

  it('turns an image grayscale: R = G = B on every sampled pixel, at the input aspect near 1024×1024', async () => {
    const { body, outputs } = await editAndFetch([await noisyPng(400, 300)], 'make it black and white');
    const pixels = await pixelsOf(outputs[0]);
    expect(pixels.width / pixels.height).toBeCloseTo(4 / 3, 1);
    expect(pixels.width * pixels.height).toBeGreaterThan(0.9 * 1024 * 1024);
    expect(pixels.width * pixels.height).toBeLessThan(1.1 * 1024 * 1024);
    for (let i = 0; i < 50; i++) {
      const [r, g, b] = pixels.at((i * 97) % pixels.width, (i * 61) % pixels.height);
      expect(r).toBe(g);
      expect(g).toBe(b);
    }
    expect(body.data[0].revised_prompt).toEqual(expect.any(String));
    expect(body.created).toBeGreaterThan(1_700_000_000);
  });

  it('understands Chinese instructions: 反色 inverts a solid colour', async () => {
    const { outputs } = await editAndFetch([await solidPng(64, 64, [200, 50, 10])], '反色', { prompt_extend: false });
    const [r, g, b] = (await pixelsOf(outputs[0])).at(10, 10);
    expect(Math.abs(r - 55)).toBeLessThanOrEqual(3);
    expect(Math.abs(g - 205)).toBeLessThanOrEqual(3);
    expect(Math.abs(b - 245)).toBeLessThanOrEqual(3);
  });

  it('rotates by 90 degrees: a landscape input becomes portrait', async () => {
    const { outputs } = await editAndFetch(
      [await halvesPng(300, 150, [255, 0, 0], [0, 0, 255])],
      'rotate 90 degrees clockwise',
      { prompt_extend: false },
    );
    const pixels = await pixelsOf(outputs[0]);
    expect(pixels.height).toBeGreaterThan(pixels.width);
    // Clockwise: the left (red) half ends up on top.
    expect(pixels.at(pixels.width >> 1, 5)[0]).toBeGreaterThan(200);
    expect(pixels.at(pixels.width >> 1, pixels.height - 5)[2]).toBeGreaterThan(200);
  });

  it('fuses three images side by side following 图1/图2/图3: the width is the sum of the inputs at a common height', async () => {
    const red = await solidPng(200, 200, [255, 0, 0]);
    const green = await solidPng(200, 200, [0, 255, 0]);
    const blue = await solidPng(400, 200, [0, 0, 255]);
    const { outputs } = await editAndFetch([red, green, blue], '把图1、图2和图3左右拼接', { prompt_extend: false });
    const pixels = await pixelsOf(outputs[0]);
    // 200 + 200 + 400 wide by 200 high: 4:1, at about 1024×1024 pixels (sides clamped to 512–2048).
    expect(pixels.width / pixels.height).toBeCloseTo(4, 1);
    const y = pixels.height >> 1;
    expect(pixels.at(Math.round(pixels.width * 0.125), y)).toEqual([255, 0, 0]);
    expect(pixels.at(Math.round(pixels.width * 0.375), y)).toEqual([0, 255, 0]);
    expect(pixels.at(Math.round(pixels.width * 0.75), y)).toEqual([0, 0, 255]);
  });

  it("places 图1 onto 图2 as picture-in-picture, keeping the last image's aspect", async () => {
    const red = await solidPng(100, 100, [255, 0, 0]);
    const blue = await solidPng(300, 200, [0, 0, 255]);
    const { outputs } = await editAndFetch([red, blue], '将图1放在图2的右下角', { prompt_extend: false });
    const pixels = await pixelsOf(outputs[0]);
    expect(pixels.width / pixels.height).toBeCloseTo(1.5, 1);
    expect(pixels.at(10, 10)).toEqual([0, 0, 255]);
    const corner = pixels.at(Math.round(pixels.width * 0.9), Math.round(pixels.height * 0.85));
    expect(corner[0]).toBeGreaterThan(200);
    expect(corner[2]).toBeLessThan(50);
  });

  it('puts 图2 on the left when the instruction names it first', async () => {
    const red = await solidPng(100, 100, [255, 0, 0]);
    const blue = await solidPng(100, 100, [0, 0, 255]);
    const { outputs } = await editAndFetch([red, blue], '图2和图1左右拼接', { prompt_extend: false });
    const pixels = await pixelsOf(outputs[0]);
    expect(pixels.at(5, pixels.height >> 1)).toEqual([0, 0, 255]);
    expect(pixels.at(pixels.width - 5, pixels.height >> 1)).toEqual([255, 0, 0]);
  });

  it('honours size exactly', async () => {
    const { outputs } = await editAndFetch([await noisyPng(300, 300)], 'sepia', { size: '768*512' });
    const pixels = await pixelsOf(outputs[0]);
    expect([pixels.width, pixels.height]).toEqual([768, 512]);
  });

  it('gives byte-identical output for the same seed, and seeded variations for n > 1', async () => {
    const input = await noisyPng(128, 96, 7);
    const first = await editAndFetch([input], 'increase the brightness', { seed: 1234, n: 2 });
    const again = await editAndFetch([input], 'increase the brightness', { seed: 1234, n: 2 });
    expect(first.outputs[0].equals(again.outputs[0])).toBe(true);
    expect(first.outputs[1].equals(again.outputs[1])).toBe(true);
    expect(first.outputs[0].equals(first.outputs[1])).toBe(false);
  });

  it('stamps a visible watermark when asked', async () => {
    const input = await solidPng(256, 256, [40, 40, 40]);
    const plain = await editAndFetch([input], 'keep as is', { seed: 1, watermark: false, size: '512*512' });
    const marked = await editAndFetch([input], 'keep as is', { seed: 1, watermark: true, size: '512*512' });
    const [a, b] = await Promise.all([pixelsOf(plain.outputs[0]), pixelsOf(marked.outputs[0])]);
    let changed = 0;
    for (let y = 400; y < 512; y += 2)
      for (let x = 256; x < 512; x += 2) if (a.at(x, y).join() !== b.at(x, y).join()) changed++;
    expect(changed).toBeGreaterThan(50);
  });

  it('still returns a valid image for an instruction it cannot act on, and says so', async () => {
    const { body, outputs } = await editAndFetch(
      [await solidPng(64, 64, [10, 200, 10])],
      'make the cat wear a wizard hat',
      { prompt_extend: false },
    );
    expect((await pixelsOf(outputs[0])).width).toBeGreaterThan(0);
    expect(body.data[0].revised_prompt).toMatch(/not|could|unsupported|无法/i);
  });

  it('rewrites the prompt with prompt_extend, keeping what was asked', async () => {
    const { body } = await editAndFetch([await solidPng(64, 64, [10, 200, 10])], '黑白', { prompt_extend: true });
    expect(body.data[0].revised_prompt).toContain('黑白');
    expect(body.data[0].revised_prompt.length).toBeGreaterThan('黑白'.length);
  });

  it('records the task with the resolved model, the image count and n × unit price', async () => {
    const { taskId } = await editAndFetch([await solidPng(64, 64, [1, 1, 1])], 'invert', { n: 3 });
    const task = await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey);
    expect(task.status).toBe(200);
    expect(task.body).toMatchObject({
      status: 'succeeded',
      model: PLUS,
      resolved_model: 'x-image-edit-plus-2025-12-15',
    });
    expect(task.body.usage.images).toBe(3);
    expect(task.body.cost).toBe(0.6);
  });

  it('counts the prompt in usage with the model’s tokenizer, Qwen2 for the x-image-edit family', async () => {
    // 4 Qwen2 tokens, where a count of words and characters made 7 (cl100k_base: 8).
    const { taskId } = await editAndFetch([await solidPng(64, 64, [1, 1, 1])], '把图片变成黑白');
    const task = await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey);
    expect(task.body.usage).toMatchObject({ prompt_tokens: 4, total_tokens: 4, images: 1 });
  });
});
