import { parseInstruction } from './instruction-parser';
import { extendPrompt } from './prompt-extend';

describe('extendPrompt', () => {
  it('turns a bare Chinese keyword into a full instruction', () => {
    expect(extendPrompt('黑白', 1)).toBe('将图片转换为黑白效果，保持主体构图与细节清晰，整体画面自然。');
    expect(extendPrompt('旋转90度', 1)).toBe('将图片旋转90度，保持主体构图与细节清晰，整体画面自然。');
  });

  it('keeps English in English', () => {
    expect(extendPrompt('sepia', 1)).toBe(
      'Apply the sepia effect to the image. Keep the subject and composition intact with fine details and a natural overall look.',
    );
    expect(extendPrompt('rotate 90 degrees', 1)).toMatch(/^Edit the image as follows: rotate 90 degrees\. Keep /);
  });

  it('names the images when there are several', () => {
    expect(extendPrompt('黑白', 2)).toBe('将图1和图2转换为黑白效果，保持主体构图与细节清晰，整体画面自然。');
    expect(extendPrompt('blur', 3)).toMatch(/^Edit image 1, image 2 and image 3 as follows: blur\./);
  });

  it('keeps a fuller instruction word for word', () => {
    expect(extendPrompt('把图1放在图2的右下角，然后调亮20%', 2)).toBe(
      '把图1放在图2的右下角，然后调亮20%，保持主体构图与细节清晰，整体画面自然。',
    );
  });

  it('is deterministic', () => {
    expect(extendPrompt('make it vintage', 1)).toBe(extendPrompt('make it vintage', 1));
  });

  it.each([
    ['黑白', 1],
    ['反色', 1],
    ['模糊', 1],
    ['亮度提高20%', 1],
    ['顺时针旋转90度', 1],
    ['裁剪为16:9', 1],
    ['添加文字“你好”', 1],
    ['sepia', 1],
    ['black and white', 1],
    ['rotate left', 1],
    ['crop the left half', 1],
    ['add a red border', 1],
    ['add text "Hi" at the top', 1],
    ['图2和图1左右拼接，然后转为黑白', 2],
    ['将图1放在图2的右下角', 2],
    ['blend image 1 and image 2', 2],
    ['vintage', 2],
    ['锐化', 3],
  ] as [string, number][])('"%s": the engine reads the same edits from the extended prompt', (prompt, imageCount) => {
    const original = parseInstruction(prompt, imageCount);
    const extended = parseInstruction(extendPrompt(prompt, imageCount), imageCount);
    expect(extended.steps).toEqual(original.steps);
    expect(extended.fusion).toEqual(original.fusion);
    expect(extended.ignored).toEqual(original.ignored);
    expect(extendPrompt(prompt, imageCount).toLowerCase()).toContain(prompt.toLowerCase());
  });

  it('still says something for an empty prompt', () => {
    expect(extendPrompt('', 1).length).toBeGreaterThan(0);
  });
});
