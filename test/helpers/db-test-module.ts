import { ConfigModule, createLogger, LoggerModule, loadConfig, randomBase62 } from '@gateway/common';
import { QueueModule } from '@gateway/queue';
import { Test, TestingModule } from '@nestjs/testing';
import { DbModule } from '@gateway/db';

/** The repositories on a database and queue prefix of their own, on the Redis and FerretDB `npm test` started. */
export async function createDbTestModule(): Promise<TestingModule> {
  const { TEST_REDIS_URL, TEST_MONGODB_URL } = process.env;
  if (!TEST_REDIS_URL || !TEST_MONGODB_URL)
    throw new Error('run with `npm test`, which starts Redis and the embedded database');
  const scope = `t${randomBase62(8)}`;
  const config = loadConfig({
    REDIS_URL: TEST_REDIS_URL,
    MONGODB_URI: `${TEST_MONGODB_URL}/${scope}`,
    REDIS_PREFIX: scope,
    MASTER_KEY: 'a'.repeat(64),
    LOG_LEVEL: 'silent',
  });
  const module = await Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(config),
      LoggerModule.forRoot(createLogger('silent', 'test')),
      DbModule,
      QueueModule.forRoot('producer'),
    ],
  }).compile();
  await module.init();
  return module;
}
