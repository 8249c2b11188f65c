import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How the fuzzing suite runs schemathesis: the same bounded, seeded run each time. */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'response_headers_conformance',
];
const SEED = '20261126';
const MAX_EXAMPLES = '25';
/** Each run takes under a minute here; past this it is hung, and is stopped and failed. */
const RUN_LIMIT_MS = 3 * 60_000;
/** An answer slower than this fails the run: every route answers the fakes' calls in well under a second. */
const REQUEST_TIMEOUT_S = '30';

export interface SchemathesisOptions {
  /** A regular expression of the paths to fuzz. */
  include: string;
  exclude?: string;
  /** Sent with every request: the credentials. */
  headers: Record<string, string>;
  /** schemathesis's phases to run (default: all of them). */
  phases?: string[];
  /** The running catalog's model ids by capability, which valid /v1 requests name (schemathesis-hooks.py). */
  catalog?: Record<string, string[]>;
}

export interface SchemathesisRun {
  exitCode: number | null;
  output: string;
  /** Operations tested, and the document's. */
  operations: { tested: number; total: number };
  /** OpenAPI links between the operations tested, and those the stateful phase followed. */
  links: { covered: number; selected: number };
  /** Test cases generated, each one request or, in the stateful phase, a step of a scenario. */
  testCases: number;
  /** Each failing operation and each kind of failure, as schemathesis names them ("GET /console/api/audit"). */
  failures: string[];
}

/** The figures of schemathesis's summary. */
function figures(output: string): Omit<SchemathesisRun, 'exitCode' | 'output'> {
  const number = (pattern: RegExp) => Number(pattern.exec(output)?.[1] ?? NaN);
  const selected = /Selected: \d+\/(\d+)\s+Tested: (\d+)/.exec(output);
  const links = /API Links:\s+(\d+) covered \/ (\d+) selected/.exec(output);
  const failing = [...output.matchAll(/^_{3,} (.+?) _{3,}$/gm)].map(([, operation]) => operation);
  const kinds = [...output.matchAll(/^\s+\S+ (ST\d+ .+: \d+)$/gm)].map(([, kind]) => kind);
  return {
    operations: { tested: Number(selected?.[2]), total: Number(selected?.[1]) },
    links: { covered: Number(links?.[1] ?? 0), selected: Number(links?.[2] ?? 0) },
    testCases: number(/^\s+(\d+) generated/m),
    failures: [...failing, ...kinds],
  };
}

/** Runs schemathesis (TEST_SCHEMATHESIS_BIN, installed by `npm test`) against the api at `apiUrl`. */
export function runSchemathesis(apiUrl: string, options: SchemathesisOptions): Promise<SchemathesisRun> {
  const bin = process.env.TEST_SCHEMATHESIS_BIN;
  if (!bin) throw new Error('run the fuzzing suite with `npm test`, which installs schemathesis');
  const args = [
    'run',
    `${apiUrl}/v1/openapi.json`,
    '--url',
    apiUrl,
    '--checks',
    CHECKS.join(','),
    '--max-examples',
    MAX_EXAMPLES,
    '--seed',
    SEED,
    '--generation-database',
    'none',
    '--request-timeout',
    REQUEST_TIMEOUT_S,
    '--no-color',
    '--include-path-regex',
    options.include,
    ...(options.exclude ? ['--exclude-path-regex', options.exclude] : []),
    ...(options.phases ? ['--phases', options.phases.join(',')] : []),
    ...Object.entries(options.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
  ];
  // schemathesis keeps what `st replay <id>` replays in its working directory: there, not in the checkout.
  const cwd = join(__dirname, '..', '..', 'test-output', 'schemathesis');
  mkdirSync(cwd, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        COLUMNS: '160',
        SCHEMATHESIS_HOOKS: join(__dirname, 'schemathesis-hooks.py'),
        GATEWAY_FUZZ_CATALOG: JSON.stringify(options.catalog ?? {}),
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const limit = setTimeout(() => {
      output += `\nstopped after ${RUN_LIMIT_MS / 60_000} minutes\n`;
      child.kill('SIGKILL');
    }, RUN_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(limit);
      const run = { exitCode, output, ...figures(output) };
      // A run that failed without a failure report (an error, or stopped): its last lines say why.
      if (exitCode !== 0 && run.failures.length === 0)
        run.failures.push(output.trim().split('\n').slice(-5).join('\n'));
      // schemathesis's own report is pytest's format, whose closing line ("1 warning in 0.25s") CI would read as a
      // run of the whole suite that executed no test: it goes to a log beside the run, and is printed only on failure.
      const log = join(cwd, `${options.include.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}.log`);
      writeFileSync(log, output);
      process.stdout.write(
        `${run.failures.length > 0 ? `${output}\n` : ''}schemathesis ${options.include}: ${run.operations.tested} operations, ${run.testCases} test cases, ${run.links.covered} of ${run.links.selected} links followed, ${run.failures.length} failures, exit code ${exitCode} (report: ${log})\n`,
      );
      resolve(run);
    });
  });
}
