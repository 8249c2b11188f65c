import sharp from 'sharp';
import { fitSides, sidesWithin } from './fit-sides';

const RANGE = { min: 384, max: 3072 };

async function solid(width: number, height: number, format: 'png' | 'jpeg') {
  const image = sharp({ create: { width, height, channels: 3, background: '#3366cc' } });
  const data = await (format === 'png' ? image.png() : image.jpeg()).toBuffer();
  return { data, mime: `image/${format}`, width, height };
}

describe('sidesWithin', () => {
  it.each([
    ['keeps sides already within the range', [1024, 768], [1024, 768]],
    ['keeps sides exactly at the bounds', [384, 3072], [384, 3072]],
    ['scales a larger image down to a long side of 3072, keeping the aspect', [4000, 3000], [3072, 2304]],
    ['scales a smaller image up to a short side of 384, keeping the aspect', [200, 100], [768, 384]],
    ['scales a small square up to 384', [200, 200], [384, 384]],
    ['scales a tall image down by its height', [1000, 6000], [512, 3072]],
    ['brings a ratio past 8:1 to 3072 long and stretches the short side to 384', [9000, 500], [3072, 384]],
    ['does the same for a thin image smaller than the range', [1000, 10], [3072, 384]],
  ])('%s', (_name, [width, height], expected) => {
    expect(sidesWithin(width, height, RANGE)).toEqual({ width: expected[0], height: expected[1] });
  });
});

describe('fitSides', () => {
  it('returns an image within the range as it is', async () => {
    const image = await solid(500, 400, 'png');
    expect(await fitSides(image, RANGE)).toBe(image);
  });

  it('scales a 4000×3000 JPEG down to 3072×2304, still a JPEG', async () => {
    const fitted = await fitSides(await solid(4000, 3000, 'jpeg'), RANGE);
    expect(fitted).toMatchObject({ mime: 'image/jpeg', width: 3072, height: 2304 });
    const metadata = await sharp(fitted.data).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual(['jpeg', 3072, 2304]);
  });

  it('scales a 200×200 PNG up to 384×384', async () => {
    const fitted = await fitSides(await solid(200, 200, 'png'), RANGE);
    const metadata = await sharp(fitted.data).metadata();
    expect([fitted.mime, metadata.format, metadata.width, metadata.height]).toEqual(['image/png', 'png', 384, 384]);
  });
});
