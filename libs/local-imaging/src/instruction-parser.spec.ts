import { EditOperation } from './edit-plan';
import { parseInstruction } from './instruction-parser';

function operations(prompt: string, imageCount = 1): EditOperation[] {
  return parseInstruction(prompt, imageCount).steps.map((step) => step.operation);
}

describe('parseInstruction', () => {
  describe('reads each edit in English and Chinese, with nothing left over', () => {
    const cases: [string, Partial<EditOperation> & { kind: EditOperation['kind'] }][] = [
      ['make it black and white', { kind: 'grayscale' }],
      ['grayscale', { kind: 'grayscale' }],
      ['黑白', { kind: 'grayscale' }],
      ['把这张图转为灰度', { kind: 'grayscale' }],
      ['sepia', { kind: 'sepia' }],
      ['give it a vintage look', { kind: 'sepia' }],
      ['做成复古风格', { kind: 'sepia' }],
      ['怀旧', { kind: 'sepia' }],
      ['invert the colors', { kind: 'invert' }],
      ['negative', { kind: 'invert' }],
      ['反色', { kind: 'invert' }],
      ['blur', { kind: 'blur', sigma: 4 }],
      ['blur it strongly', { kind: 'blur', sigma: 8 }],
      ['blur 6', { kind: 'blur', sigma: 6 }],
      ['轻微模糊', { kind: 'blur', sigma: 2 }],
      ['sharpen', { kind: 'sharpen' }],
      ['锐化一下', { kind: 'sharpen' }],
      ['make it brighter', { kind: 'adjust', property: 'brightness', factor: 1.2 }],
      ['increase the brightness by 30%', { kind: 'adjust', property: 'brightness', factor: 1.3 }],
      ['darker', { kind: 'adjust', property: 'brightness', factor: 0.8 }],
      ['亮度提高20%', { kind: 'adjust', property: 'brightness', factor: 1.2 }],
      ['降低亮度', { kind: 'adjust', property: 'brightness', factor: 0.8 }],
      ['调亮', { kind: 'adjust', property: 'brightness', factor: 1.2 }],
      ['调暗一点', { kind: 'adjust', property: 'brightness', factor: 0.9 }],
      ['increase contrast', { kind: 'adjust', property: 'contrast', factor: 1.25 }],
      ['lower the contrast', { kind: 'adjust', property: 'contrast', factor: 0.75 }],
      ['对比度降低30%', { kind: 'adjust', property: 'contrast', factor: 0.7 }],
      ['more saturated', { kind: 'adjust', property: 'saturation', factor: 1.3 }],
      ['更鲜艳', { kind: 'adjust', property: 'saturation', factor: 1.3 }],
      ['降低饱和度', { kind: 'adjust', property: 'saturation', factor: 0.7 }],
      ['rotate 90 degrees', { kind: 'rotate', degrees: 90 }],
      ['rotate by 45°', { kind: 'rotate', degrees: 45 }],
      ['rotate 30 degrees counterclockwise', { kind: 'rotate', degrees: -30 }],
      ['rotate left', { kind: 'rotate', degrees: -90 }],
      ['旋转90度', { kind: 'rotate', degrees: 90 }],
      ['逆时针旋转90度', { kind: 'rotate', degrees: -90 }],
      ['顺时针旋转一百八十度', { kind: 'rotate', degrees: 180 }],
      ['turn it upside down', { kind: 'rotate', degrees: 180 }],
      ['flip vertically', { kind: 'flip' }],
      ['flip it upside down', { kind: 'flip' }],
      ['上下翻转', { kind: 'flip' }],
      ['垂直翻转', { kind: 'flip' }],
      ['mirror', { kind: 'mirror' }],
      ['flip horizontally', { kind: 'mirror' }],
      ['水平翻转', { kind: 'mirror' }],
      ['镜像', { kind: 'mirror' }],
      ['crop the left half', { kind: 'crop-region', region: 'left' }],
      ['keep only the top half', { kind: 'crop-region', region: 'top' }],
      ['remove the right half', { kind: 'crop-region', region: 'left' }],
      ['crop the center', { kind: 'crop-region', region: 'center' }],
      ['裁剪左半部分', { kind: 'crop-region', region: 'left' }],
      ['裁掉下半部分', { kind: 'crop-region', region: 'top' }],
      ['裁剪右上角', { kind: 'crop-region', region: 'top-right' }],
      ['crop to 16:9', { kind: 'crop-aspect', width: 16, height: 9 }],
      ['裁剪为1:1', { kind: 'crop-aspect', width: 1, height: 1 }],
      ['make it square', { kind: 'crop-aspect', width: 1, height: 1 }],
      ['scale to 50%', { kind: 'zoom', factor: 0.5 }],
      ['缩小到50%', { kind: 'zoom', factor: 0.5 }],
      ['zoom in 2x', { kind: 'zoom', factor: 2 }],
      ['放大2倍', { kind: 'zoom', factor: 2 }],
      ['resize to 800x600', { kind: 'resize' }],
      ['add a border', { kind: 'border', color: expect.objectContaining({ en: 'white' }) }],
      ['add a 10px red border', { kind: 'border', width: 10, color: expect.objectContaining({ en: 'red' }) }],
      ['加一个蓝色边框', { kind: 'border', color: expect.objectContaining({ en: 'blue' }) }],
      ['添加20像素的黑色边框', { kind: 'border', width: 20, color: expect.objectContaining({ en: 'black' }) }],
      [
        'add text "Hello, black and white world" at the top',
        { kind: 'text', text: 'Hello, black and white world', position: 'top' },
      ],
      ['添加文字“你好”', { kind: 'text', text: '你好', position: 'bottom' }],
      [
        '在顶部加上红色文字「新年快乐」',
        { kind: 'text', text: '新年快乐', position: 'top', color: expect.objectContaining({ en: 'red' }) },
      ],
      ['标题：春天来了', { kind: 'text', text: '春天来了' }],
    ];

    it.each(cases)('%s', (prompt, expected) => {
      const plan = parseInstruction(prompt, 1);
      expect(plan.steps.map((step) => step.operation)).toEqual([expect.objectContaining(expected)]);
      expect(plan.ignored).toEqual([]);
    });
  });

  it('keeps the order of combined edits', () => {
    expect(
      operations('rotate 90 degrees, then make it black and white and add a red border').map((op) => op.kind),
    ).toEqual(['rotate', 'grayscale', 'border']);
    expect(operations('先裁剪为1:1，然后调亮20%，再加上文字“OK”').map((op) => op.kind)).toEqual([
      'crop-aspect',
      'adjust',
      'text',
    ]);
  });

  it('reads the words inside quotes as text to draw, never as edits', () => {
    expect(operations('add the caption "rotate 90 and blur"')).toEqual([
      expect.objectContaining({ kind: 'text', text: 'rotate 90 and blur' }),
    ]);
  });

  it('skips negated edits', () => {
    expect(operations("sharpen it, don't blur").map((op) => op.kind)).toEqual(['sharpen']);
    expect(operations('不要模糊，锐化').map((op) => op.kind)).toEqual(['sharpen']);
  });

  it('reports what it cannot act on, in the words of the instruction', () => {
    expect(parseInstruction('make the cat wear a hat', 1)).toMatchObject({
      steps: [],
      ignored: ['make the cat wear a hat'],
    });
    expect(parseInstruction('给猫戴上帽子', 1)).toMatchObject({ steps: [], ignored: ['给猫戴上帽子'] });
    expect(parseInstruction('black and white and replace the sky with a sunset', 1)).toMatchObject({
      steps: [{ operation: { kind: 'grayscale' } }],
      ignored: ['replace the sky with a sunset'],
    });
    expect(parseInstruction('blur the background', 1)).toMatchObject({ steps: [], ignored: ['blur the background'] });
  });

  it('does not report requests to keep things as they are', () => {
    expect(parseInstruction('keep as is', 1).ignored).toEqual([]);
    expect(parseInstruction('黑白，保持主体构图与细节清晰，整体画面自然', 1).ignored).toEqual([]);
  });

  it('answers in the language of the instruction', () => {
    expect(parseInstruction('黑白', 1).language).toBe('zh');
    expect(parseInstruction('sepia', 1).language).toBe('en');
    expect(parseInstruction('add text "你好"', 1).language).toBe('en');
    expect(parseInstruction('“Hello”', 1).language).toBe('en');
  });

  describe('several images', () => {
    it('lays images side by side in the order they are named', () => {
      expect(parseInstruction('把图1和图2左右拼接', 2).fusion).toMatchObject({
        kind: 'side-by-side',
        order: [0, 1],
        explicit: true,
      });
      expect(parseInstruction('图2和图1左右拼接', 2).fusion).toMatchObject({ kind: 'side-by-side', order: [1, 0] });
      expect(parseInstruction('put the second image and the first image side by side', 2).fusion).toMatchObject({
        order: [1, 0],
      });
      expect(parseInstruction('把图1、图2和图3并排', 3).fusion).toMatchObject({
        kind: 'side-by-side',
        order: [0, 1, 2],
      });
    });

    it('follows positions given in words', () => {
      expect(parseInstruction('图1放在图2右边', 2).fusion).toMatchObject({ kind: 'side-by-side', order: [1, 0] });
      expect(parseInstruction('image 1 on the right and image 2 on the left, side by side', 2).fusion).toMatchObject({
        order: [1, 0],
      });
      expect(parseInstruction('put image 1 below image 2', 2).fusion).toMatchObject({
        kind: 'top-bottom',
        order: [1, 0],
      });
    });

    it('stacks images top and bottom', () => {
      expect(parseInstruction('上下拼接', 2).fusion).toMatchObject({ kind: 'top-bottom', order: [0, 1] });
      expect(parseInstruction('stack image 2 and image 1 vertically', 2).fusion).toMatchObject({
        kind: 'top-bottom',
        order: [1, 0],
      });
    });

    it('places one image onto another, in the corner named', () => {
      expect(parseInstruction('把图1放到图2上', 2).fusion).toMatchObject({
        kind: 'picture-in-picture',
        overlay: 0,
        base: 1,
        placement: 'bottom-right',
      });
      expect(parseInstruction('将图2放在图1的左上角', 2).fusion).toMatchObject({
        overlay: 1,
        base: 0,
        placement: 'top-left',
      });
      expect(parseInstruction('put image 1 in the top right corner of image 2 at 40%', 2).fusion).toMatchObject({
        overlay: 0,
        base: 1,
        placement: 'top-right',
        scale: 0.4,
      });
      expect(parseInstruction('以图2为背景，把图1放在右下角', 2).fusion).toMatchObject({ overlay: 0, base: 1 });
    });

    it('blends images, by the share asked', () => {
      expect(parseInstruction('blend image 1 and image 2', 2).fusion).toMatchObject({
        kind: 'blend',
        order: [0, 1],
        weights: [0.5, 0.5],
      });
      expect(parseInstruction('把图1和图2融合，图2占30%', 2).fusion).toMatchObject({
        kind: 'blend',
        weights: [0.7, 0.3],
      });
      expect(parseInstruction('mix image 1 and image 2 at 7:3', 2).fusion).toMatchObject({ weights: [0.7, 0.3] });
    });

    it('applies edits after the fusion unless a clause names one image', () => {
      const plan = parseInstruction('把图1和图2左右拼接，然后转为黑白', 2);
      expect(plan.steps).toEqual([{ operation: { kind: 'grayscale' } }]);
      const targeted = parseInstruction('把图2转为黑白，然后和图1左右拼接', 2);
      expect(targeted.steps).toEqual([{ operation: { kind: 'grayscale' }, image: 1 }]);
      expect(targeted.fusion).toMatchObject({ kind: 'side-by-side' });
    });

    it('edits the one image named when no layout is asked for', () => {
      const plan = parseInstruction('把图2转为黑白', 2);
      expect(plan).toMatchObject({ subject: 1, fusion: undefined, notes: [{ kind: 'unused-images', images: [0] }] });
    });

    it('falls back to side by side in request order and says so', () => {
      expect(parseInstruction('make it vintage', 3)).toMatchObject({
        fusion: { kind: 'side-by-side', order: [0, 1, 2], explicit: false },
        notes: [{ kind: 'default-fusion' }],
      });
    });

    it('notes an image named but not provided', () => {
      expect(parseInstruction('把图3转为黑白', 2).notes).toContainEqual({ kind: 'missing-image', image: 2 });
    });

    it('cannot fuse a single image', () => {
      expect(parseInstruction('side by side', 1)).toMatchObject({ fusion: undefined, ignored: ['side by side'] });
    });
  });
});
