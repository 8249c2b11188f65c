import { formatDuration } from './format-duration';

describe('formatDuration', () => {
  it.each([
    [15_000, '15 s'],
    [1_000, '1 s'],
    [300, '300 ms'],
    [1_500, '1500 ms'],
  ])('%i → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
