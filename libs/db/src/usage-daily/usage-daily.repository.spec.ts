import { utcDay } from '@gateway/common';
import { TestingModule } from '@nestjs/testing';
import { createDbTestModule } from '../../../../test/helpers/db-test-module';
import { UsageDailyRepository } from './usage-daily.repository';

describe('UsageDailyRepository.add on the embedded database', () => {
  let module: TestingModule;

  beforeAll(async () => {
    module = await createDbTestModule();
  });

  afterAll(async () => {
    await module?.close();
  });

  it('adds to more existing roll-ups at once than FerretDB has connections (it would wait forever in one command)', async () => {
    const usage = module.get(UsageDailyRepository);
    const day = utcDay();
    const increments = Array.from({ length: 120 }, (_, i) => ({
      key: { appId: `app_${i % 12}`, model: `model-${Math.floor(i / 12)}`, day },
      counters: { calls: 1, errors: 0, promptTokens: i, completionTokens: 0, images: 0, cost: 0 },
    }));
    await usage.add(increments); // inserts
    await usage.add(increments); // updates of 120 existing documents
    const app3 = await usage.listForApp('app_3', day, day);
    expect(app3).toHaveLength(10);
    expect(app3.map((row) => row.calls)).toEqual(Array(10).fill(2));
    expect(app3.find((row) => row.model === 'model-0')!.promptTokens).toBe(6);
  }, 30_000);
});
