import Ajv, { ValidateFunction } from 'ajv';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

/** The chart, and the Kubernetes version its manifests are checked against (kubernetes-validate's schemas). */
export const CHART_DIR = join(__dirname, '..', '..', 'deploy', 'helm', 'model-gateway');
export const KUBERNETES_VERSION = '1.33.0';

/** A rendered manifest: only what the assertions read is typed. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

function tool(variable: 'TEST_HELM_BIN' | 'TEST_KUBERNETES_VALIDATE_BIN' | 'TEST_CRD_DIR'): string {
  const value = process.env[variable];
  if (!value) throw new Error(`run the Helm chart suite with \`npm test\`, which sets ${variable} (scripts/helm.js)`);
  return value;
}

function run(command: string, args: string[]): { status: number; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, output: `${result.stdout}${result.stderr}` };
}

/** `helm lint --strict` with the values files (relative to the chart), on the chart at `chart`. */
export function helmLint(valuesFiles: string[], chart = CHART_DIR): { status: number; output: string } {
  return run(tool('TEST_HELM_BIN'), ['lint', '--strict', chart, ...valuesArgs(valuesFiles, chart)]);
}

/** `helm template` with the values files and `--set` pairs; throws with helm's message when rendering fails. */
export function helmTemplate(valuesFiles: string[], set: string[] = [], chart = CHART_DIR): Manifest[] {
  const { status, output } = run(tool('TEST_HELM_BIN'), [
    'template',
    'gateway',
    chart,
    '--namespace',
    'gateway',
    '--kube-version',
    KUBERNETES_VERSION,
    ...valuesArgs(valuesFiles, chart),
    ...set.flatMap((pair) => ['--set', pair]),
  ]);
  if (status !== 0) throw new Error(`helm template failed:\n${output}`);
  return parseAllDocuments(output)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

function valuesArgs(valuesFiles: string[], chart: string): string[] {
  return valuesFiles.flatMap((file) => ['--values', join(chart, file)]);
}

/** Kinds whose schemas come from CRDs rather than Kubernetes itself. */
const CRD_GROUPS = ['keda.sh/', 'monitoring.coreos.com/'];
export const isCustomResource = (manifest: Manifest) =>
  CRD_GROUPS.some((group) => manifest.apiVersion.startsWith(group));

/**
 * kubernetes-validate --strict on the core kinds (unknown fields are errors). Answers the problems found, and how
 * many manifests it reported as passed, so a run that checked nothing cannot look green.
 */
export function validateCoreKinds(manifests: Manifest[]): { problems: string[]; passed: number } {
  const dir = mkdtempSync(join(tmpdir(), 'helm-chart-'));
  try {
    const file = join(dir, 'manifests.yaml');
    writeFileSync(file, manifests.map((manifest) => JSON.stringify(manifest)).join('\n---\n'));
    const { output } = run(tool('TEST_KUBERNETES_VALIDATE_BIN'), ['-k', KUBERNETES_VERSION, '--strict', file]);
    const lines = output.split('\n');
    return {
      problems: lines.filter((line) => /^(ERROR|WARN)/.test(line)),
      passed: lines.filter((line) => line.includes(' passed for resource ')).length,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface CrdVersion {
  name: string;
  schema: { openAPIV3Schema: Record<string, unknown> };
}
interface Crd {
  spec: { group: string; names: { kind: string }; versions: CrdVersion[] };
}

/**
 * Validators of the custom resources, from the CRDs of KEDA and prometheus-operator (TEST_CRD_DIR, from their Go
 * modules). The API server prunes fields a structural schema does not list; here they are errors, as
 * kubernetes-validate --strict makes them for the core kinds, so a misspelt field is caught.
 */
export function customResourceValidators(): Map<string, ValidateFunction> {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { regExp: goPattern } });
  const validators = new Map<string, ValidateFunction>();
  const dir = tool('TEST_CRD_DIR');
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.yaml'))) {
    const crd = parseYaml(readFileSync(join(dir, file), 'utf8')) as Crd;
    for (const version of crd.spec.versions) {
      const key = `${crd.spec.group}/${version.name}/${crd.spec.names.kind}`;
      validators.set(key, ajv.compile(closed(version.schema.openAPIV3Schema) as object));
    }
  }
  return validators;
}

/** CRD patterns are Go regular expressions: their (?i), as in `^(?i)(abort|warn)?$`, is JavaScript's `i` flag. */
const goPattern = Object.assign(
  (pattern: string, flags: string) =>
    pattern.includes('(?i)') ? new RegExp(pattern.replace('(?i)', ''), `${flags}i`) : new RegExp(pattern, flags),
  { code: 'new RegExp' },
);

/** The schema with `additionalProperties: false` wherever it lists properties and keeps no unknown fields. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
  if (
    'properties' in copy &&
    !('additionalProperties' in copy) &&
    copy['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    copy.additionalProperties = false;
  }
  return copy;
}

/** The problems of one custom resource against its CRD's schema; a kind no CRD describes is a problem too. */
export function validateCustomResource(validators: Map<string, ValidateFunction>, manifest: Manifest): string[] {
  const validate = validators.get(`${manifest.apiVersion}/${manifest.kind}`);
  const name = `${manifest.kind}/${manifest.metadata.name}`;
  if (!validate) return [`${name}: no CRD schema for ${manifest.apiVersion} ${manifest.kind}`];
  if (validate(manifest)) return [];
  return (validate.errors ?? []).map(
    (error) => `${name}: ${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`,
  );
}
