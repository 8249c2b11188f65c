import { utcDay } from '@gateway/common';
import { TestingModule } from '@nestjs/testing';
import { createDbTestModule } from '../../../../test/helpers/db-test-module';
import { UsageDailyRepository } from './usage-daily.repository';

const NONE = { calls: 0, errors: 0, promptTokens: 0, completionTokens: 0, images: 0, costNanos: 0 };

describe('UsageDailyRepository on the embedded database', () => {
  let module: TestingModule;
  let usage: UsageDailyRepository;

  beforeAll(async () => {
    module = await createDbTestModule();
    usage = module.get(UsageDailyRepository);
  });

  afterAll(async () => {
    await module?.close();
  });

  it('folds into and replaces more existing roll-ups than FerretDB has connections (one command would wait forever)', async () => {
    const day = utcDay();
    const increments = Array.from({ length: 120 }, (_, i) => ({
      key: { appId: `app_${i % 12}`, model: `model-${Math.floor(i / 12)}`, day },
      counters: { ...NONE, calls: 1, promptTokens: i },
    }));
    await usage.fold('batch-1', increments); // inserts
    await usage.fold('batch-2', increments); // updates of 120 existing documents
    const app3 = await usage.listForApp('app_3', day, day);
    expect(app3).toHaveLength(10);
    expect(app3.map((row) => row.calls)).toEqual(Array(10).fill(2));
    expect(app3.find((row) => row.model === 'model-0')!.promptTokens).toBe(6);
    await usage.replace(increments); // 120 existing documents in bulk writes of 16
    expect((await usage.listForApp('app_3', day, day)).map((row) => row.calls)).toEqual(Array(10).fill(1));
  }, 30_000);

  it('folds a batch once however often it is folded, and the next batch on top', async () => {
    const day = utcDay();
    const key = { appId: 'app_refold', model: 'm', day };
    const other = { appId: 'app_refold', model: 'n', day };
    const batch = [{ key, counters: { ...NONE, calls: 3, costNanos: 1_500 } }];
    await usage.fold('a', batch);
    // The same batch again, as after a fold that died before it was marked done, now reaching a second roll-up too.
    await usage.fold('a', [...batch, { key: other, counters: { ...NONE, calls: 1 } }]);
    await usage.fold('b', [{ key, counters: { ...NONE, calls: 2, errors: 1, costNanos: 7 } }]);
    const rows = await usage.listForApp('app_refold', day, day);
    expect(rows.map(({ model, calls, errors, costNanos }) => ({ model, calls, errors, costNanos }))).toEqual([
      { model: 'm', calls: 5, errors: 1, costNanos: 1_507 },
      { model: 'n', calls: 1, errors: 0, costNanos: 0 },
    ]);
  }, 30_000);

  it('replaces roll-ups with exact counters', async () => {
    const day = utcDay();
    const key = { appId: 'app_replace', model: 'm', day };
    await usage.fold('c', [{ key, counters: { ...NONE, calls: 9 } }]);
    await usage.replace([{ key, counters: { ...NONE, calls: 4, promptTokens: 12 } }]);
    const [row] = await usage.listForApp('app_replace', day, day);
    expect(row).toMatchObject({ calls: 4, promptTokens: 12, errors: 0 });
  }, 30_000);
});
