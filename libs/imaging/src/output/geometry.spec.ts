import { outputGeometry } from './geometry';

describe('outputGeometry', () => {
  it('returns the requested size exactly', () => {
    expect(outputGeometry({ width: 4000, height: 3000 }, { width: 768, height: 512 })).toEqual({
      width: 768,
      height: 512,
    });
    expect(outputGeometry({ width: 10, height: 10 }, { width: 2048, height: 1000 })).toEqual({
      width: 2048,
      height: 1000,
    });
  });

  it('keeps the last image’s aspect at about 1024×1024 pixels, each side a multiple of 16', () => {
    expect(outputGeometry({ width: 4000, height: 3000 })).toEqual({ width: 1184, height: 880 });
    expect(outputGeometry({ width: 64, height: 64 })).toEqual({ width: 1024, height: 1024 });
    expect(outputGeometry({ width: 200, height: 100 })).toEqual({ width: 1456, height: 720 });
    for (const [width, height] of [
      [1920, 1080],
      [1080, 1920],
      [400, 300],
      [333, 777],
      [2048, 1536],
      [1000, 1001],
    ]) {
      const output = outputGeometry({ width, height });
      expect(output.width % 16).toBe(0);
      expect(output.height % 16).toBe(0);
      expect(Math.abs((output.width * output.height) / 1024 ** 2 - 1)).toBeLessThan(0.05);
      expect(output.width / output.height).toBeCloseTo(width / height, 1);
    }
  });

  it('clamps extreme aspects to the 512–2048 range a requested size must respect', () => {
    expect(outputGeometry({ width: 3000, height: 100 })).toEqual({ width: 2048, height: 512 });
    expect(outputGeometry({ width: 100, height: 3000 })).toEqual({ width: 512, height: 2048 });
    expect(outputGeometry({ width: 4096, height: 1024 })).toEqual({ width: 2048, height: 512 });
  });

  it('treats a degenerate size as square', () => {
    expect(outputGeometry({ width: 0, height: 0 })).toEqual({ width: 1024, height: 1024 });
  });
});
