import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './gateway';

// scripts/services.js is the same helper `npm test` uses to start the shared servers.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services.js') as { freePort(): Promise<number> };

export interface PromSeries {
  metric: Record<string, string>;
  value: [number, string];
}

export interface PromTarget {
  job: string;
  /** An operations listener's URL, as `http://127.0.0.1:port`. */
  url: string;
}

/**
 * Debian's Prometheus server (TEST_PROMETHEUS_BIN, which `npm test` installs) on a free 127.0.0.1 port with its own
 * storage, scraping `targets` and evaluating `ruleGlob`'s rules every second.
 */
export class PrometheusServer {
  private process?: ChildProcess;
  private dir?: string;
  private jobs = 0;
  url = '';

  async start(targets: PromTarget[], ruleGlob?: string): Promise<this> {
    this.jobs = new Set(targets.map((t) => t.job)).size;
    this.dir = mkdtempSync(join(tmpdir(), 'gw-prometheus-'));
    const config = join(this.dir, 'prometheus.yml');
    writeFileSync(config, JSON.stringify(scrapeConfig(targets, ruleGlob)));
    const port = await services.freePort();
    this.url = `http://127.0.0.1:${port}`;
    this.process = spawn(
      process.env.TEST_PROMETHEUS_BIN || 'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(this.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const exited = new Promise<never>((_, reject) =>
      this.process!.once('exit', (code) => reject(new Error(`prometheus exited with code ${code}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([
      exited,
      waitFor(
        () =>
          fetch(`${this.url}/-/ready`).then(
            (r) => r.ok,
            () => false,
          ),
        (ready) => ready,
        'prometheus to be ready',
        30_000,
      ),
    ]);
    return this;
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** An instant query through the HTTP API: its vector, or throws with Prometheus's error. */
  async query(expr: string): Promise<PromSeries[]> {
    const response = await fetch(`${this.url}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: expr }),
    });
    const answer = (await response.json()) as {
      status: string;
      error?: string;
      data?: { resultType: string; result: unknown };
    };
    if (answer.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${answer.error}`);
    const { resultType, result } = answer.data!;
    if (resultType === 'scalar') return [{ metric: {}, value: result as [number, string] }];
    if (resultType !== 'vector') throw new Error(`${expr} gave a ${resultType}, not an instant vector`);
    return result as PromSeries[];
  }

  /** Values of `label` on the series of `metric`, as Grafana's label_values(metric, label) reads them. */
  async labelValues(label: string, metric: string): Promise<string[]> {
    const query = new URLSearchParams({ 'match[]': metric });
    const answer = (await (await fetch(`${this.url}/api/v1/label/${label}/values?${query}`)).json()) as {
      data: string[];
    };
    return answer.data;
  }

  /** How many scrapes the least-scraped job has had (0 while a job has none; Prometheus applies targets within 5 s). */
  async scrapes(): Promise<number> {
    const series = await this.query('count_over_time(up[1h])');
    if (new Set(series.map((s) => s.metric.job)).size < this.jobs) return 0;
    return Math.min(...series.map((s) => Number(s.value[1])));
  }

  /** The oldest last evaluation of the loaded rule groups, in ms (Infinity when none is loaded), and their health. */
  async rules(): Promise<{ lastEvaluationMs: number; groups: RuleGroup[] }> {
    const answer = (await (await fetch(`${this.url}/api/v1/rules`)).json()) as { data: { groups: RuleGroup[] } };
    const { groups } = answer.data;
    const times = groups.map((group) => Date.parse(group.lastEvaluation));
    return { lastEvaluationMs: times.length > 0 ? Math.min(...times) : Infinity, groups };
  }

  /**
   * Resolves once every target has been scraped twice more, so at least one scrape began after the call, and every rule
   * group was evaluated after that.
   */
  async caughtUp(): Promise<void> {
    const before = await this.scrapes();
    await waitFor(
      () => this.scrapes(),
      (n) => n >= before + 2,
      'two scrapes of every target',
      30_000,
    );
    const scrapedBy = Date.now();
    await waitFor(
      () => this.rules(),
      (r) => r.lastEvaluationMs > scrapedBy,
      'a rule evaluation',
      30_000,
    );
  }
}

export interface RuleGroup {
  name: string;
  file: string;
  lastEvaluation: string;
  rules: { name: string; health: string; lastError?: string; type: string }[];
}

function scrapeConfig(targets: PromTarget[], ruleGlob?: string) {
  return {
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    ...(ruleGlob && existsSync(join(ruleGlob, '..')) ? { rule_files: [ruleGlob] } : {}),
    scrape_configs: targets.map(({ job, url }) => ({
      job_name: job,
      metrics_path: '/metrics',
      static_configs: [{ targets: [new URL(url).host] }],
    })),
  };
}
