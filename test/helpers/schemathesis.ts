import { spawn } from 'node:child_process';

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

export interface SchemathesisOptions {
  /** A regular expression of the paths to fuzz. */
  include: string;
  exclude?: string;
  /** Sent with every request: the credentials. */
  headers: Record<string, string>;
  /** schemathesis's phases to run (default: all of them). */
  phases?: string[];
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
    '--no-color',
    '--include-path-regex',
    options.include,
    ...(options.exclude ? ['--exclude-path-regex', options.exclude] : []),
    ...(options.phases ? ['--phases', options.phases.join(',')] : []),
    ...Object.entries(options.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, COLUMNS: '160' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (exitCode) => {
      const run = { exitCode, output, ...figures(output) };
      process.stdout.write(
        `${output}\nschemathesis ${options.include}: ${run.operations.tested} operations, ${run.testCases} test cases, ${run.links.covered} of ${run.links.selected} links followed, ${run.failures.length} failures, exit code ${exitCode}\n`,
      );
      resolve(run);
    });
  });
}
