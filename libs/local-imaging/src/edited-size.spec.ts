import { editedSize } from './edited-size';
import { LocalEditEngine } from './local-edit-engine';
import { noisyPng } from '../../../test/fixtures/test-images';

describe('editedSize', () => {
  const landscape = { width: 600, height: 400 };

  it('follows the geometry edits of one image', () => {
    expect(editedSize([landscape], 'rotate 90 degrees')).toEqual({ width: 400, height: 600 });
    expect(editedSize([landscape], '旋转180度')).toEqual(landscape);
    expect(editedSize([landscape], 'rotate 45 degrees')).toEqual({ width: 707, height: 707 });
    expect(editedSize([landscape], '裁剪左半部分')).toEqual({ width: 300, height: 400 });
    expect(editedSize([landscape], 'crop to 1:1, then rotate left')).toEqual({ width: 400, height: 400 });
    expect(editedSize([landscape], 'zoom in 2x')).toEqual({ width: 300, height: 200 });
    expect(editedSize([landscape], 'black and white, scale to 50%')).toEqual(landscape);
  });

  it('follows the layout of several images', () => {
    const square = { width: 512, height: 512 };
    expect(editedSize([square, square], '把图1和图2左右拼接')).toEqual({ width: 1024, height: 512 });
    expect(editedSize([square, landscape], 'stack them top and bottom')).toEqual({ width: 600, height: 1000 });
    expect(editedSize([square, landscape], '将图1放在图2的右下角')).toEqual(landscape);
    expect(editedSize([square, landscape], '把图2转为黑白')).toEqual(landscape);
  });

  it('leaves out edits the negative prompt cancels', () => {
    expect(editedSize([landscape], 'rotate 90 degrees', 'rotation')).toEqual(landscape);
  });

  it.each([
    'rotate 90 degrees',
    'rotate 33 degrees',
    'crop the top left corner',
    'crop to 16:9',
    'zoom in 3x',
    '图2和图1左右拼接，然后逆时针旋转90度',
    '将图1放在图2的右下角',
  ])(
    'predicts the picture the engine makes for "%s", so an output of that size needs no letterboxing',
    async (prompt) => {
      const images = [await noisyPng(96, 64, 1), await noisyPng(50, 80, 2)];
      const sizes = [
        { width: 96, height: 64 },
        { width: 50, height: 80 },
      ];
      const output = editedSize(sizes, prompt);
      const result = await new LocalEditEngine().edit({
        images,
        prompt,
        seed: 1,
        variation: 0,
        output,
        watermark: false,
      });
      expect(result.revisedPrompt).not.toMatch(/backdrop/);
    },
  );
});
