import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataUri, download, editBody, Pixels, pixelsOf, solidPng } from '../helpers/images';
import {
  createApplication,
  postJson,
  RunningApi,
  spawnWorker,
  startApi,
  startWorker,
  testEnv,
  waitUntil,
} from '../helpers/gateway';

const PLUS = 'x-image-edit-plus';
const BACKGROUND: [number, number, number] = [40, 90, 150];
/** A channel this far apart counts as a different pixel: well past PNG and resampling noise. */
const DIFFERENT = 60;

/**
 * This machine's fonts without any that covers Chinese: what a fresh machine has before `npm start` installs a CJK
 * font. Pango draws each Chinese character there as a box with its code point in it.
 */
const NO_CHINESE_FONTCONFIG = `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont><pattern><patelt name="lang"><string>zh-cn</string></patelt></pattern></rejectfont></selectfont>
</fontconfig>
`;

/** The share of the bottom quarter's pixels (where a caption goes by default) for which `differs` holds. */
function shareOfCaptionRegion(image: Pixels, differs: (x: number, y: number) => boolean): number {
  let count = 0;
  let total = 0;
  for (let y = Math.floor(image.height * 0.75); y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      total += 1;
      if (differs(x, y)) count += 1;
    }
  }
  return count / total;
}

const apart = (a: number[], b: number[]) => a.some((value, i) => Math.abs(value - b[i]) > DIFFERENT);

/**
 * A Chinese caption through the local engine, end to end, on the fonts this machine has (npm test and npm start
 * install a CJK font), against the same edit by a worker that sees no Chinese font: glyphs, not boxes.
 */
describe('a Chinese caption through the local engine', () => {
  const deployments: { api: RunningApi; apiKey: string }[] = [];
  let inProcessWorker: { close(): Promise<void> } | undefined;
  let boxesWorker: ChildProcess | undefined;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-cjk-'));
    const fontconfigFile = join(dir, 'fonts.conf');
    writeFileSync(fontconfigFile, NO_CHINESE_FONTCONFIG);
    const [withFonts, withoutChinese] = [testEnv(), testEnv()];
    inProcessWorker = await startWorker(withFonts);
    // The reference: a worker process whose fontconfig leaves every Chinese font out.
    boxesWorker = spawnWorker({ ...withoutChinese, FONTCONFIG_FILE: fontconfigFile });
    for (const env of [withFonts, withoutChinese]) {
      const api = await startApi(env);
      deployments.push({ api, apiKey: (await createApplication(api)).apiKey });
    }
  });

  afterAll(async () => {
    boxesWorker?.kill('SIGKILL');
    await Promise.all([inProcessWorker?.close(), ...deployments.map(({ api }) => api.close())]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function captioned({ api, apiKey }: { api: RunningApi; apiKey: string }): Promise<Pixels> {
    const input = dataUri(await solidPng(256, 256, BACKGROUND));
    const response = await postJson(
      `${api.url}/v1/images/edits`,
      editBody(PLUS, [input], 'add text "你好"', { prompt_extend: false }),
      apiKey,
    );
    expect(response.status).toBe(200);
    const file = await download(response.body.data[0].url);
    expect(file.status).toBe(200);
    return pixelsOf(file.bytes);
  }

  it('draws the glyphs of 你好, which differ from the boxes drawn without a Chinese font', async () => {
    await waitUntil(() => boxesWorker?.pid !== undefined, 'the reference worker to start');
    const [glyphs, boxes] = await Promise.all(deployments.map(captioned));
    expect([glyphs.width, glyphs.height]).toEqual([boxes.width, boxes.height]);

    // Something is drawn on the plain picture in both: a band and its text.
    const inked = (image: Pixels) => shareOfCaptionRegion(image, (x, y) => apart(image.at(x, y), BACKGROUND));
    expect(inked(glyphs)).toBeGreaterThan(0.02);
    expect(inked(boxes)).toBeGreaterThan(0.02);
    // And what is drawn is not the boxes: a good part of the caption's pixels differ.
    const differing = shareOfCaptionRegion(glyphs, (x, y) => apart(glyphs.at(x, y), boxes.at(x, y)));
    expect(differing).toBeGreaterThan(0.03);
  });
});
