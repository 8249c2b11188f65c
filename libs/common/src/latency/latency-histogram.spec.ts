import { addLatency, latencyBucket, latencyPercentile } from './latency-histogram';

describe('latency histogram', () => {
  it('puts a latency in the first bucket whose bound holds it, the slowest in the last', () => {
    expect(latencyBucket(0)).toBe(50);
    expect(latencyBucket(50)).toBe(50);
    expect(latencyBucket(51)).toBe(100);
    expect(latencyBucket(10_000_000)).toBe(300_000);
  });

  it('reads percentiles as bucket upper bounds', () => {
    const histogram = addLatency({ '100': 90 }, { '2500': 9, '60000': 1 });
    expect(latencyPercentile(histogram, 0.5)).toBe(100);
    expect(latencyPercentile(histogram, 0.9)).toBe(100);
    expect(latencyPercentile(histogram, 0.95)).toBe(2500);
    expect(latencyPercentile(histogram, 1)).toBe(60_000);
    expect(latencyPercentile({}, 0.5)).toBeNull();
  });
});
