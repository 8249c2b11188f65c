import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');

/** `npm test` passes Debian's promtool (scripts/services.js, ensurePrometheus). */
const PROMTOOL = process.env.TEST_PROMTOOL_BIN || 'promtool';
const RULES_DIR = path.join(ROOT, 'prometheus', 'rules');
const TESTS_DIR = path.join(RULES_DIR, 'tests');
const RUNBOOKS = path.join(ROOT, 'docs', 'runbooks.md');

interface Rule {
  alert?: string;
  record?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertTest {
  alertname: string;
  exp_alerts?: unknown[];
}

const ruleFiles = yamlFiles(RULES_DIR);
const testFiles = yamlFiles(TESTS_DIR);
const alerts = ruleFiles.flatMap((file) =>
  (parse(fs.readFileSync(file, 'utf8')).groups as { rules: Rule[] }[]).flatMap((group) =>
    group.rules.filter((rule) => rule.alert),
  ),
);

jest.setTimeout(180_000);

describe('Prometheus alerting and recording rules (prometheus/rules)', () => {
  it('pass `promtool check rules`', () => {
    expect(ruleFiles.length).toBeGreaterThan(0);
    promtool(['check', 'rules', ...ruleFiles]);
  });

  it('pass their unit tests, `promtool test rules` over prometheus/rules/tests', () => {
    expect(testFiles.length).toBeGreaterThan(0);
    promtool(['test', 'rules', ...testFiles]);
  });

  it('give every alert a firing case and a silent case in those tests', () => {
    const cases = new Map<string, { firing: number; silent: number }>();
    for (const file of testFiles) {
      const tests = parse(fs.readFileSync(file, 'utf8')).tests as { alert_rule_test?: AlertTest[] }[];
      for (const check of tests.flatMap((test) => test.alert_rule_test ?? [])) {
        const counted = cases.get(check.alertname) ?? { firing: 0, silent: 0 };
        if (check.exp_alerts?.length) counted.firing += 1;
        else counted.silent += 1;
        cases.set(check.alertname, counted);
      }
    }
    const uncovered = alerts
      .map((rule) => ({ alert: rule.alert, ...(cases.get(rule.alert!) ?? { firing: 0, silent: 0 }) }))
      .filter((counted) => counted.firing === 0 || counted.silent === 0);
    expect(uncovered).toEqual([]);
  });

  it('give every alert a severity, a summary, a description and a runbook section in docs/runbooks.md', () => {
    const runbooks = fs.readFileSync(RUNBOOKS, 'utf8');
    const anchors = new Set(
      runbooks
        .split('\n')
        .filter((line) => /^#{2,3} /.test(line))
        .map((line) => githubAnchor(line.replace(/^#+ /, ''))),
    );
    const brokenLinks = [...runbooks.matchAll(/\]\(#([^)]+)\)/g)]
      .map((link) => link[1])
      .filter((id) => !anchors.has(id));
    expect(brokenLinks).toEqual([]);
    const incomplete = alerts
      .filter(
        (rule) =>
          !['page', 'ticket'].includes(rule.labels?.severity ?? '') ||
          !rule.annotations?.summary ||
          !rule.annotations?.description ||
          rule.annotations?.runbook_url !== `docs/runbooks.md#${githubAnchor(rule.alert!)}` ||
          !anchors.has(githubAnchor(rule.alert!)),
      )
      .map((rule) => rule.alert);
    expect(incomplete).toEqual([]);
  });
});

describe('The compose stack evaluates those rules', () => {
  it('mounts prometheus/rules where prometheus/prometheus.yml reads them, and the config with them checks', () => {
    const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));
    const mount = (compose.services.prometheus.volumes as string[]).find((volume) =>
      volume.startsWith('./prometheus/rules:'),
    );
    expect(mount).toBeDefined();
    const mountedAt = mount!.split(':')[1];
    const config = parse(fs.readFileSync(path.join(ROOT, 'prometheus', 'prometheus.yml'), 'utf8'));
    expect(config.rule_files).toEqual([`${mountedAt}/*.yml`]);
    // The same config with the mount's path replaced by the repository's: promtool loads and checks every rule file.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prometheus-config-'));
    try {
      const local = path.join(dir, 'prometheus.yml');
      fs.writeFileSync(local, stringify({ ...config, rule_files: [path.join(RULES_DIR, '*.yml')] }));
      const output = promtool(['check', 'config', local]);
      for (const file of ruleFiles) expect(output).toContain(file);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Runs promtool; a failure shows its whole output in the test's message. */
function promtool(args: string[]): string {
  const run = spawnSync(PROMTOOL, args, { cwd: ROOT, encoding: 'utf8' });
  if (run.error) throw new Error(`could not run ${PROMTOOL}: ${run.error.message}`);
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0) throw new Error(`promtool ${args.join(' ')} exited ${run.status}:\n${output}`);
  process.stdout.write(`promtool ${args[0]} ${args[1]}:\n${output}`);
  return output;
}

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.yml'))
    .sort()
    .map((name) => path.join(dir, name));
}

/** The id GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
