import { reportedImages, reportedUsage } from './reported-usage';

describe('what an upstream answer reports', () => {
  it('takes Chat Completions, Responses and embeddings token fields as the answer states them', () => {
    expect(reportedUsage({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 })).toEqual({
      reported: { promptTokens: 12, completionTokens: 5 },
    });
    expect(reportedUsage({ input_tokens: 9, output_tokens: 4, total_tokens: 13 })).toEqual({
      reported: { promptTokens: 9, completionTokens: 4 },
    });
    expect(reportedUsage({ total_tokens: 7 })).toEqual({ reported: { promptTokens: 7 } });
  });

  it('records nothing, not zeros, for an answer without usage or with figures that are not counts', () => {
    expect(reportedUsage(undefined)).toEqual({});
    expect(reportedUsage(null)).toEqual({});
    expect(reportedUsage({})).toEqual({});
    expect(reportedUsage({ prompt_tokens: -1, completion_tokens: 2.5, cost: 'free' })).toEqual({});
    expect(reportedImages(undefined)).toEqual({});
    expect(reportedImages({ image_count: '2' })).toEqual({});
  });

  it('keeps a stated cost as exact nanos, rounded half up', () => {
    expect(reportedUsage({ prompt_tokens: 194, completion_tokens: 2, cost: 0.95 })).toEqual({
      reported: { promptTokens: 194, completionTokens: 2, costNanos: 950_000_000 },
    });
    expect(reportedUsage({ cost: 0.0000000015 })).toEqual({ reported: { costNanos: 2 } });
  });

  it("takes DashScope's image_count as the images generated", () => {
    expect(reportedImages({ image_count: 2 })).toEqual({ reported: { images: 2 } });
  });
});
