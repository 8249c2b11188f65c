import { setImmediate as nextTurn } from 'node:timers/promises';
import { BurstPacer } from './burst-pacer';

describe('BurstPacer', () => {
  it('starts a lone request at once', () => {
    const pacer = new BurstPacer(2);
    const started: number[] = [];
    pacer.run(() => started.push(1));
    expect(started).toEqual([1]);
  });

  it('starts a burst that many per turn, in arrival order', async () => {
    const pacer = new BurstPacer(2);
    const started: number[] = [];
    for (let i = 1; i <= 5; i++) pacer.run(() => started.push(i));
    expect(started).toEqual([1, 2]);
    expect(pacer.deferred).toBe(3);
    await nextTurn();
    expect(started).toEqual([1, 2, 3, 4]);
    await nextTurn();
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(pacer.deferred).toBe(0);
  });

  it('counts the requests started from the queue against the turn that started them', async () => {
    const pacer = new BurstPacer(2);
    const started: string[] = [];
    for (const name of ['a', 'b', 'c']) pacer.run(() => started.push(name));
    await nextTurn();
    // c took one start of this turn's two: d has the other, e waits for the next turn.
    pacer.run(() => started.push('d'));
    pacer.run(() => started.push('e'));
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    await nextTurn();
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('gives each turn a new budget once the burst is over', async () => {
    const pacer = new BurstPacer(2);
    const started: number[] = [];
    pacer.run(() => started.push(1));
    pacer.run(() => started.push(2));
    await nextTurn();
    await nextTurn();
    pacer.run(() => started.push(3));
    pacer.run(() => started.push(4));
    expect(started).toEqual([1, 2, 3, 4]);
  });
});
