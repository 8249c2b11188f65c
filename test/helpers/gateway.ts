import { AppConfig, EnvSource, loadConfig } from '@gateway/common';
import { BillingRecord, BillingRecordsRepository, TasksRepository } from '@gateway/db';
import { OperationsListener } from '@gateway/metrics';
import { ApplicationInput, CredentialsService, IssuedCredentials } from '@gateway/tenancy';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChildProcess, spawn } from 'node:child_process';
import { createApiApp } from '../../apps/api/src/bootstrap';
import { createWorkerApp } from '../../apps/worker/src/bootstrap';
import { ENTRY_POINTS } from '../../scripts/processes';
import { checkContract } from './contract';

export { ROOT, testEnv } from './test-env';

export interface RunningApi {
  app: NestFastifyApplication;
  url: string;
  /** The operations listener's: /metrics and /health/ready. */
  metricsUrl: string;
  config: AppConfig;
  close(): Promise<void>;
}

export async function startApi(env: EnvSource): Promise<RunningApi> {
  const config = loadConfig(env);
  const app = await createApiApp(config);
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  const metricsUrl = await app.get(OperationsListener).listen(0, '127.0.0.1');
  return { app, url: url.replace('[::1]', '127.0.0.1'), metricsUrl, config, close: () => app.close() };
}

export interface RunningWorker {
  app: NestFastifyApplication;
  close(): Promise<void>;
}

export async function startWorker(env: EnvSource): Promise<RunningWorker> {
  const app = await createWorkerApp(loadConfig(env));
  await app.init();
  return { app, close: () => app.close() };
}

/** This process's environment with a test deployment's settings on top, as a child process takes it. */
export function processEnv(env: EnvSource): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries({ ...process.env, ...env }).map(([k, v]) => [k, String(v ?? '')]));
}

/**
 * A worker as a separate OS process from the build, for tests that kill it. Its operations listener takes any free
 * port unless `env` names one.
 */
export function spawnWorker(env: EnvSource): ChildProcess {
  return spawn(process.execPath, [ENTRY_POINTS.worker], {
    env: processEnv({ WORKER_PORT: 0, ...env }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** An application with no limits, scope or callback: what tests start from. */
export function applicationInput(name: string, settings: Partial<ApplicationInput> = {}): ApplicationInput {
  return {
    name,
    description: '',
    type: 'backend',
    usageScenario: '',
    expectedVolume: 0,
    scope: { capabilities: [], models: [] },
    dailyCallLimit: 0,
    concurrencyLimit: 0,
    requestsPerMinute: 0,
    tokenQuota: 0,
    ipWhitelist: [],
    ...settings,
  };
}

export async function createApplication(
  api: RunningApi,
  name = 'test-app',
  settings: Partial<ApplicationInput> = {},
): Promise<IssuedCredentials> {
  const issued = await api.app.get(CredentialsService).createApplication(applicationInput(name, settings));
  return { appId: issued.appId, apiKey: issued.apiKey, secretKey: issued.secretKey };
}

export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  await waitFor(check, (done) => done, what, timeoutMs);
}

/** Reads until `done` holds for what `read` returned, and returns that. */
export async function waitFor<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A task's billing records. They are written with its record, just before it, once the answer is delivered: so they
 * are read once the record exists.
 */
export async function billsOf(api: RunningApi, taskId: string, appId: string): Promise<BillingRecord[]> {
  await waitFor(
    () => api.app.get(TasksRepository).findForApp(taskId, appId),
    (record) => record !== null,
    `the record of ${taskId}`,
  );
  return api.app.get(BillingRecordsRepository).listForTask(taskId, appId);
}

export async function postJson(url: string, body: unknown, apiKey?: string, signal?: AbortSignal) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    body: JSON.stringify(body),
    signal,
  });
  const answer = { status: response.status, headers: response.headers, body: await response.json() };
  await checkContract('POST', url, answer);
  return answer;
}

export async function getJson(url: string, apiKey?: string) {
  const response = await fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
  const answer = { status: response.status, headers: response.headers, body: await response.json() };
  await checkContract('GET', url, answer);
  return answer;
}

/** The value of the Prometheus sample `name` whose labels include `labels` (any order), or undefined. */
export function metricValue(exposition: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.lastIndexOf('}'));
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}
