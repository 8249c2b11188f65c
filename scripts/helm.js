'use strict';
// What the Helm chart suite (test/e2e/helm-chart.e2e-spec.ts) needs, each made once and cached under
// ~/.cache/model-gateway, like FerretDB: helm built from the Go module proxy; kubernetes-validate (PyPI, pinned in
// scripts/helm/requirements.txt) in a venv, for the core kinds; and the CRDs of KEDA and prometheus-operator, taken
// from their Go modules, for the chart's ScaledObjects, TriggerAuthentication, ServiceMonitor and PrometheusRule.
// Plain Node with built-ins only, like services.js.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { ensurePinnedVenv } = require('./python-venv');
const { CACHE_DIR, ensureGo, log, run } = require('./services');

const HELM_VERSION = 'v3.22.0';
// The Kubernetes version helm assumes without a cluster (`helm template`, `helm lint`): its release builds set it
// with -ldflags from the k8s.io modules of its go.mod (client-go v0.37 for v3.22.0), as its Makefile does.
const HELM_KUBERNETES_MINOR = '37';
const REQUIREMENTS = path.join(__dirname, 'helm', 'requirements.txt');
/** Go modules whose sources hold the CRDs, and the CRD files the chart's resources are checked against. */
const CRD_SOURCES = [
  {
    name: 'keda',
    module: 'github.com/kedacore/keda/v2',
    version: 'v2.21.0',
    files: ['config/crd/bases/keda.sh_scaledobjects.yaml', 'config/crd/bases/keda.sh_triggerauthentications.yaml'],
  },
  {
    name: 'prometheus-operator',
    module: 'github.com/prometheus-operator/prometheus-operator',
    version: 'v0.85.0',
    files: [
      'example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml',
      'example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml',
    ],
  },
];

/** Runs `make(tmp)` into a temporary directory beside `target`, then moves it there: a cut-short run leaves nothing. */
function buildOnce(target, what, make) {
  if (fs.existsSync(target)) return;
  const started = Date.now();
  log(`${what} (first run only; cached in ${target})`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  make(tmp);
  fs.renameSync(tmp, target);
  log(`${what}: done in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** helm, built with `go install` from the Go module proxy. */
function ensureHelm() {
  if (process.env.HELM_BIN) return process.env.HELM_BIN;
  const dir = path.join(CACHE_DIR, `helm-${HELM_VERSION}-k8s1.${HELM_KUBERNETES_MINOR}`);
  buildOnce(dir, `building helm ${HELM_VERSION} from the Go module proxy`, (tmp) => {
    const go = ensureGo();
    // helm's go.mod may ask for a newer Go than the machine's: GOTOOLCHAIN=auto fetches it from the module proxy.
    const env = { ...process.env, GOBIN: tmp, GOTOOLCHAIN: 'auto', GOFLAGS: '-mod=mod' };
    const ldflags = [
      '-s -w',
      `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
      ...['pkg/lint/rules', 'pkg/chartutil'].flatMap((pkg) => [
        `-X helm.sh/helm/v3/${pkg}.k8sVersionMajor=1`,
        `-X helm.sh/helm/v3/${pkg}.k8sVersionMinor=${HELM_KUBERNETES_MINOR}`,
      ]),
    ].join(' ');
    run(go, ['install', '-trimpath', `-ldflags=${ldflags}`, `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
      env,
      cwd: os.tmpdir(),
    });
  });
  return path.join(dir, 'helm');
}

/** kubernetes-validate in a venv named by the hash of its pinned requirements. */
function ensureKubernetesValidate() {
  return ensurePinnedVenv({ name: 'kubernetes-validate', requirements: REQUIREMENTS, command: 'kubernetes-validate' });
}

/** A directory with the CRD files of CRD_SOURCES, extracted from their module zips (`go mod download`). */
function ensureCrds() {
  const name = CRD_SOURCES.map((source) => `${source.name}-${source.version}`).join('-');
  const dir = path.join(CACHE_DIR, `crds-${name}`);
  buildOnce(dir, 'downloading the KEDA and prometheus-operator CRDs from the Go module proxy', (tmp) => {
    const go = ensureGo();
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'crds-'));
    fs.writeFileSync(path.join(work, 'go.mod'), 'module crds\n\ngo 1.22\n');
    for (const source of CRD_SOURCES) {
      const info = JSON.parse(
        execFileSync(go, ['mod', 'download', '-json', `${source.module}@${source.version}`], {
          cwd: work,
          encoding: 'utf8',
        }),
      );
      for (const file of source.files) fs.copyFileSync(path.join(info.Dir, file), path.join(tmp, path.basename(file)));
    }
    fs.writeFileSync(
      path.join(tmp, 'SOURCES'),
      CRD_SOURCES.map((source) => `${source.module}@${source.version}\n`).join(''),
    );
    fs.rmSync(work, { recursive: true, force: true });
  });
  return dir;
}

/** Everything the chart suite runs, as the environment `npm test` gives jest. */
function ensureHelmTools() {
  return {
    TEST_HELM_BIN: ensureHelm(),
    TEST_KUBERNETES_VALIDATE_BIN: ensureKubernetesValidate(),
    TEST_CRD_DIR: ensureCrds(),
  };
}

module.exports = { ensureHelm, ensureKubernetesValidate, ensureCrds, ensureHelmTools, HELM_VERSION };

if (require.main === module) process.stdout.write(`${JSON.stringify(ensureHelmTools(), null, 2)}\n`);
