import sharp from 'sharp';
import { near, pixelsOf, solidPng } from '../../../../test/fixtures/test-images';
import { stampWatermark } from './watermark';

describe('stampWatermark', () => {
  it('marks the bottom-right corner and leaves the rest of the image alone', async () => {
    const plain = await solidPng(512, 512, [40, 40, 40]);
    const [before, after] = await Promise.all([pixelsOf(plain), pixelsOf(await stampWatermark(plain))]);
    expect([after.width, after.height]).toEqual([512, 512]);
    const corner = { left: 256, top: 400, width: 256, height: 112 };
    const cornerBefore = before.all(corner);
    const changed = after.all(corner).filter((pixel, index) => !near(pixel, cornerBefore[index], 0));
    expect(changed.length).toBeGreaterThan(500);
    // White label text, not just a darker badge.
    expect(after.all(corner).some(([r, g, b]) => r > 200 && g > 200 && b > 200)).toBe(true);
    expect(after.all({ left: 0, top: 0, width: 256, height: 256 }).every((pixel) => near(pixel, [40, 40, 40], 0))).toBe(
      true,
    );
  });

  it('returns a PNG, the same bytes every time, keeping transparency', async () => {
    const translucent = await sharp({
      create: { width: 200, height: 100, channels: 4, background: { r: 0, g: 128, b: 0, alpha: 0.5 } },
    })
      .png()
      .toBuffer();
    const [first, second] = await Promise.all([stampWatermark(translucent), stampWatermark(translucent)]);
    expect(first.equals(second)).toBe(true);
    expect(await sharp(first).metadata()).toMatchObject({ format: 'png', width: 200, height: 100, channels: 4 });
  });

  it('copes with tiny images', async () => {
    for (const [width, height] of [
      [8, 8],
      [1, 1],
      [300, 12],
    ]) {
      expect(await sharp(await stampWatermark(await solidPng(width, height, [0, 0, 0]))).metadata()).toMatchObject({
        width,
        height,
      });
    }
  });
});
