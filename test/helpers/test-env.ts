import { AppConfig, EnvSource, loadConfig, randomBase62 } from '@gateway/common';
import { join } from 'node:path';

// The one place tests read the servers `npm test` started (TEST_REDIS_URL, TEST_MONGODB_URL): everything else takes
// a configuration from here, as the gateway takes its own from the config module.

export const ROOT = join(__dirname, '..', '..');
const MASTER_KEY = 'a'.repeat(64);

/**
 * Configuration of one test file's deployment: its own MongoDB database and Redis prefix on the shared
 * Redis/FerretDB that `npm test` started, so suites never see each other's jobs or records.
 */
export function testEnv(overrides: EnvSource = {}): EnvSource {
  const { TEST_REDIS_URL, TEST_MONGODB_URL } = process.env;
  if (!TEST_REDIS_URL || !TEST_MONGODB_URL)
    throw new Error('run the e2e suite with `npm test`, which starts Redis and FerretDB');
  const scope = `t${randomBase62(8)}`;
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    REDIS_URL: TEST_REDIS_URL,
    MONGODB_URI: `${TEST_MONGODB_URL}/${scope}`,
    REDIS_PREFIX: scope,
    MASTER_KEY,
    MODELS_CONFIG: join(ROOT, 'test', 'fixtures', 'models.yaml'),
    UPSTREAM_RETRY_BASE_MS: 20,
    // Each worker would load the local models (about 2.5 s, 300 MB); the suites that use them turn them on.
    LOCAL_MODELS: 'off',
    WAIT_RECHECK_INTERVAL_MS: 500,
    // Most suites register several accounts; operators.e2e-spec tests invitations and closed sign-up.
    CONSOLE_SIGNUP: 'open',
    ...overrides,
  };
}

/** testEnv validated as the gateway validates its own, for specs that build services without an app. */
export function testConfig(overrides: EnvSource = {}): AppConfig {
  return loadConfig(testEnv(overrides));
}
