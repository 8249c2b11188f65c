import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BULLMQ_VERSION_CHECKED } from './prompt-worker';

/**
 * PromptWorker reaches into BullMQ's private parts. Any other version than the one it was checked against fails
 * here, with what to re-check, before it can fail in production (WORKER_FETCH=bullmq is the way back meanwhile).
 */
describe('the BullMQ version PromptWorker relies on', () => {
  const recheck =
    `PromptWorker was checked against bullmq ${BULLMQ_VERSION_CHECKED}: re-check what BULLMQ_VERSION_CHECKED lists ` +
    '(apps/worker/src/tasks/prompt-worker.ts) against the new version, then move the pin and the constant together';

  it('is the version installed', () => {
    const installed = (JSON.parse(readFileSync(require.resolve('bullmq/package.json'), 'utf8')) as { version: string })
      .version;
    if (installed !== BULLMQ_VERSION_CHECKED) throw new Error(`bullmq ${installed} is installed. ${recheck}`);
  });

  it('is pinned exactly in package.json, so no install picks another', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    if (pkg.dependencies.bullmq !== BULLMQ_VERSION_CHECKED)
      throw new Error(`package.json asks for bullmq "${pkg.dependencies.bullmq}". ${recheck}`);
  });
});
