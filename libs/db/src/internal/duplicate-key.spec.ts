import { isDuplicateKey } from './duplicate-key';

describe('isDuplicateKey', () => {
  it("knows a unique index's refusal, on a driver error or on one write of a bulk write", () => {
    expect(isDuplicateKey({ code: 11000, message: 'E11000 duplicate key error' })).toBe(true);
    expect(isDuplicateKey({ err: { code: 11000 } })).toBe(true);
  });

  it('is false for any other failure', () => {
    for (const other of [{ code: 121 }, { err: { code: 2 } }, new Error('network'), undefined, null, 'E11000'])
      expect(isDuplicateKey(other)).toBe(false);
  });
});
