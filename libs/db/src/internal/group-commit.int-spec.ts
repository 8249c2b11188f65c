import { getConnectionToken } from '@nestjs/mongoose';
import { TestingModule } from '@nestjs/testing';
import { Connection } from 'mongoose';
import { createDbTestModule } from '../../../../test/helpers/db-test-module';
import { GroupCommitInserter } from './group-commit';

describe('GroupCommitInserter on the embedded database', () => {
  let module: TestingModule;

  beforeAll(async () => {
    module = await createDbTestModule();
  });

  afterAll(async () => {
    await module?.close();
  });

  it('inserts every new document of a batch that also holds duplicates, and tells which were new', async () => {
    const collection = module.get<Connection>(getConnectionToken()).collection('group_commit');
    await collection.insertMany([{ _id: 'a' }, { _id: 'c' }] as never);
    const inserter = new GroupCommitInserter<{ _id: string }>(() => collection as never);
    // One batch: the inserts of one turn go together.
    const results = await inserter.insertMany(['x', 'a', 'b', 'c', 'd'].map((_id) => ({ _id })));
    expect(results).toEqual([true, false, true, false, true]);
    const ids = (await collection.find({}).toArray()).map((doc) => doc._id).sort();
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'x']);
  });
});
