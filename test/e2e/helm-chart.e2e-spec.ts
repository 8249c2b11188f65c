import { AppConfig, loadConfig } from '@gateway/common';
import { QueueName } from '@gateway/queue';
import { RedisKeys } from '@gateway/redis';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  CHART_DIR,
  customResourceValidators,
  helmLint,
  helmTemplate,
  isCustomResource,
  Manifest,
  validateCoreKinds,
  validateCustomResource,
} from '../helpers/helm-chart';

// The Helm chart (deploy/helm/model-gateway): helm lint, helm template, every rendered manifest checked against
// Kubernetes' schemas (kubernetes-validate) or its CRD's (KEDA, prometheus-operator), and what the rendered chart
// must say about the gateway: queues, probes, grace periods, secrets. helm, kubernetes-validate and the CRDs come
// from `npm test` (scripts/helm.js).

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/**
 * The renderings checked: the defaults, production (Redis Sentinel), the defaults with every optional part on, and
 * over a Redis Cluster.
 */
const RENDERINGS: Record<string, { values: string[]; set?: string[] }> = {
  default: { values: ['values.yaml'] },
  production: { values: ['values.yaml', 'values-production.yaml'] },
  'optional parts on': {
    values: ['values.yaml'],
    set: [
      'redis.passwordSecret.name=gateway-redis',
      'modelsConfig=routes: []',
      'serviceMonitor.enabled=true',
      'prometheusRule.enabled=true',
    ],
  },
  'redis cluster': { values: ['values.yaml'], set: ['redis.clusterNodes=redis-0:6379\\,redis-1:6379\\,redis-2:6379'] },
};
const rendered: Record<string, Manifest[]> = {};
for (const [name, { values, set }] of Object.entries(RENDERINGS)) rendered[name] = helmTemplate(values, set);

interface Container {
  name: string;
  command: string[];
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: unknown[];
  livenessProbe: Probe;
  readinessProbe: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}
interface Probe {
  httpGet: { path: string; port: string };
}
interface PodSpec {
  terminationGracePeriodSeconds: number;
  containers: Container[];
}
type Deployment = Manifest & { spec: { replicas?: number; template: { spec: PodSpec } } };
type ScaledObject = Manifest & {
  spec: { scaleTargetRef: { name: string }; triggers: { type: string; metadata: Record<string, string> }[] };
};

const ofKind = <T extends Manifest>(manifests: Manifest[], kind: string) =>
  manifests.filter((manifest) => manifest.kind === kind) as T[];
const containerOf = (deployment: Deployment) => deployment.spec.template.spec.containers[0];
const envValue = (container: Container, name: string) => container.env.find((entry) => entry.name === name)?.value;
const workers = (manifests: Manifest[]) =>
  ofKind<Deployment>(manifests, 'Deployment').filter(
    (deployment) => deployment.metadata.labels?.['app.kubernetes.io/component'] === 'worker',
  );

/** A master key for loading rendered configurations; a Secret holds the real one. */
const SOME_MASTER_KEY = 'a'.repeat(64);

/**
 * The configuration one container of the chart would start with, as the gateway reads it (loadConfig): the
 * ConfigMap, then the container's own variables; each variable from a Secret stands in with a valid value.
 */
function containerConfig(manifests: Manifest[], container: Container): AppConfig {
  const configMap = ofKind<Manifest & { data: Record<string, string> }>(manifests, 'ConfigMap')[0];
  const fromSecrets: Record<string, string> = {
    MASTER_KEYS: SOME_MASTER_KEY,
    MONGODB_URI: 'mongodb://mongo-0,mongo-1,mongo-2/gateway?replicaSet=rs0',
    REDIS_URL: 'redis://:secret@redis:6379',
    REDIS_SENTINEL_PASSWORD: 'secret',
  };
  const own = Object.fromEntries(
    container.env.map((entry) => [entry.name, entry.value ?? fromSecrets[entry.name]] as const),
  );
  return loadConfig({ ...configMap.data, ...own });
}

/** Every variable env.ts declares (libs/common/src/config), read from its source. */
function envSettings(): Set<string> {
  return new Set(
    [...read('libs/common/src/config/env.ts').matchAll(/^ {2}([A-Z][A-Z0-9_]+)\??(?::| =)/gm)].map((m) => m[1]),
  );
}

/** The paths each listener serves, read from the source: the operations listener's, and the public /health/live. */
function servedPaths(): { operations: string[]; public: string[] } {
  const operations = [
    ...read('libs/metrics/src/operations/operations-listener.ts').matchAll(/path === '(\/[^']+)'/g),
  ].map((match) => match[1]);
  const controller = read('libs/metrics/src/operations/health.controller.ts');
  const base = /@Controller\('([^']+)'\)/.exec(controller)?.[1];
  const routes = [...controller.matchAll(/@Get\('([^']+)'\)/g)].map((match) => `/${base}/${match[1]}`);
  return { operations, public: routes };
}

describe('Helm chart', () => {
  it.each([
    ['default', ['values.yaml']],
    ['production', ['values.yaml', 'values-production.yaml']],
  ])('passes helm lint --strict with the %s values', (_name, values) => {
    const { status, output } = helmLint(values);
    expect({ status, output }).toMatchObject({ status: 0 });
    expect(output).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  describe.each(Object.keys(RENDERINGS))('rendered with the %s values', (name) => {
    const manifests = rendered[name];

    it('renders every kind the chart is made of', () => {
      const kinds = new Set(manifests.map((manifest) => manifest.kind));
      for (const kind of ['ConfigMap', 'Deployment', 'Service', 'HorizontalPodAutoscaler', 'ScaledObject'])
        expect(kinds).toContain(kind);
      expect(workers(manifests).map((worker) => worker.metadata.labels?.['model-gateway/worker-group'])).toEqual([
        'chat-embeddings',
        'image-edit',
        'webhooks-maintenance',
      ]);
    });

    it('validates every core manifest against the Kubernetes schemas (kubernetes-validate --strict)', () => {
      const core = manifests.filter((manifest) => !isCustomResource(manifest));
      const { problems, passed } = validateCoreKinds(core);
      expect(problems).toEqual([]);
      expect(passed).toBe(core.length);
    });

    it('validates every custom resource against its CRD schema (KEDA, prometheus-operator)', () => {
      const validators = customResourceValidators();
      const custom = manifests.filter(isCustomResource);
      expect(custom.length).toBeGreaterThan(0);
      expect(custom.flatMap((manifest) => validateCustomResource(validators, manifest))).toEqual([]);
    });

    it('names every resource as Kubernetes requires (DNS-1035 label, at most 63 characters)', () => {
      for (const { metadata } of manifests) expect(metadata.name).toMatch(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
    });

    it('gives each worker group a ScaledObject on the BullMQ wait lists of exactly the queues it serves', () => {
      const scaled = new Map(
        ofKind<ScaledObject>(manifests, 'ScaledObject').map((object) => [object.spec.scaleTargetRef.name, object]),
      );
      for (const worker of workers(manifests)) {
        // The queues and key prefix the worker itself takes from this configuration (hash-tagged on a Cluster).
        const config = containerConfig(manifests, containerOf(worker));
        const queues = config.workerQueues as string[];
        const keys = new RedisKeys(config.redisKeyPrefix);
        const triggers = scaled.get(worker.metadata.name)!.spec.triggers;
        // KEDA's scaler for the topology the gateway connects to: one server, Sentinel or Cluster.
        const scaler = { single: 'redis', sentinel: 'redis-sentinel', cluster: 'redis-cluster' }[
          config.redisTopology.mode
        ];
        expect(new Set(triggers.map((trigger) => trigger.type))).toEqual(new Set([scaler]));
        expect(triggers.map((trigger) => trigger.metadata.listName)).toEqual(
          queues.map((queue) => keys.bullmq(queue, 'wait')),
        );
      }
    });

    it('serves every queue of the system in exactly one worker group', () => {
      const served = workers(manifests).flatMap((worker) => envValue(containerOf(worker), 'WORKER_QUEUES')!.split(','));
      expect([...served].sort()).toEqual(Object.values(QueueName).sort());
    });

    it('gives each pod a grace period longer than its own shutdown deadline (and the api its pre-stop pause)', () => {
      for (const deployment of ofKind<Deployment>(manifests, 'Deployment')) {
        const container = containerOf(deployment);
        const deadlineSeconds = Number(envValue(container, 'SHUTDOWN_TIMEOUT_MS')) / 1000;
        const preStop = Number(container.lifecycle?.preStop?.exec?.command[1] ?? 0);
        expect(deadlineSeconds).toBeGreaterThan(0);
        expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(deadlineSeconds + preStop);
      }
    });

    it('points the probes at paths the apps serve, on the ports they listen on', () => {
      const paths = servedPaths();
      expect(paths.operations).toEqual(expect.arrayContaining(['/health/ready', '/health/live', '/metrics']));
      for (const deployment of ofKind<Deployment>(manifests, 'Deployment')) {
        const container = containerOf(deployment);
        const isApi = container.command.some((part) => part.includes('apps/api/'));
        // Which listener each named port is, by the variable that sets its port number.
        const listeners: Record<string, { variable: string; paths: string[] }> = isApi
          ? {
              http: { variable: 'API_PORT', paths: paths.public },
              metrics: { variable: 'METRICS_PORT', paths: paths.operations },
            }
          : { metrics: { variable: 'WORKER_PORT', paths: paths.operations } };
        for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
          const listener = listeners[probe!.httpGet.port];
          const port = container.ports.find((entry) => entry.name === probe!.httpGet.port)!;
          expect(listener.paths).toContain(probe!.httpGet.path);
          expect(String(port.containerPort)).toBe(envValue(container, listener.variable));
        }
        // Readiness is the check of Redis and MongoDB; it lives only on the operations listener.
        expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
        expect(listeners[container.readinessProbe.httpGet.port].variable).not.toBe('API_PORT');
      }
    });

    it('starts every container with a configuration the gateway accepts (loadConfig)', () => {
      for (const deployment of ofKind<Deployment>(manifests, 'Deployment')) {
        const config = containerConfig(manifests, containerOf(deployment));
        expect(config.masterKeys).toEqual([SOME_MASTER_KEY]);
      }
    });

    it('sets only variables the gateway reads (env.ts), so a misspelt setting fails here, not in the cluster', () => {
      const known = envSettings();
      const configMap = ofKind<Manifest & { data: Record<string, string> }>(manifests, 'ConfigMap')[0];
      const names = [
        ...Object.keys(configMap.data),
        ...ofKind<Deployment>(manifests, 'Deployment').flatMap((deployment) =>
          containerOf(deployment).env.map((entry) => entry.name),
        ),
      ];
      expect(names.filter((variable) => !known.has(variable))).toEqual([]);
    });
  });

  it('runs each worker group at a fixed replica count without KEDA, and leaves the count to KEDA with it', () => {
    const withoutKeda = helmTemplate(['values.yaml'], ['keda.enabled=false', 'workers.defaults.replicas=3']);
    expect(ofKind(withoutKeda, 'ScaledObject')).toEqual([]);
    expect(workers(withoutKeda).map((worker) => worker.spec.replicas)).toEqual([3, 3, 3]);
    // A replica count in the Deployment would fight the HPA KEDA makes at every upgrade.
    expect(workers(rendered.default).map((worker) => worker.spec.replicas)).toEqual([undefined, undefined, undefined]);
  });

  it('scales on lists that hold the jobs BullMQ has waiting (a real Redis)', async () => {
    const redisUrl = process.env.TEST_REDIS_URL;
    if (!redisUrl) throw new Error('run the Helm chart suite with `npm test`, which starts Redis');
    // A prefix of its own, so the jobs added here meet no worker and no other suite.
    const manifests = helmTemplate(['values.yaml'], [`redis.prefix=helm-chart-${process.pid}`]);
    const redis = new Redis(redisUrl);
    const queues: Queue[] = [];
    try {
      const scaled = ofKind<ScaledObject>(manifests, 'ScaledObject');
      for (const worker of workers(manifests)) {
        const config = containerConfig(manifests, containerOf(worker));
        for (const name of config.workerQueues as string[]) {
          const queue = new Queue(name, { connection: { url: redisUrl }, prefix: config.redisKeyPrefix });
          queues.push(queue);
          await queue.add('probe', {});
        }
      }
      const lists = scaled.flatMap((object) => object.spec.triggers.map((trigger) => trigger.metadata.listName));
      expect(lists).toHaveLength(Object.values(QueueName).length);
      for (const list of lists) expect(await redis.llen(list)).toBe(1);
    } finally {
      await Promise.all(queues.map((queue) => queue.obliterate({ force: true }).then(() => queue.close())));
      redis.disconnect();
    }
  });

  it('rejects values the chart does not have (values.schema.json), naming only queues the system has', () => {
    expect(() => helmTemplate(['values.yaml'], ['api.autoscalng.enabled=false'])).toThrow(
      /additional properties 'autoscalng' not allowed/,
    );
    const schema = JSON.parse(read('deploy/helm/model-gateway/values.schema.json')) as {
      definitions: { workerSettings: { properties: { queues: { items: { enum: string[] } } } } };
    };
    expect([...schema.definitions.workerSettings.properties.queues.items.enum].sort()).toEqual(
      Object.values(QueueName).sort(),
    );
  });

  it('generates the master key into a Secret of its own when none is given', () => {
    const secrets = ofKind<Manifest & { data: Record<string, string> }>(rendered.default, 'Secret');
    expect(secrets).toHaveLength(1);
    expect(Buffer.from(secrets[0].data.MASTER_KEYS, 'base64').toString()).toMatch(/^[0-9a-f]{64}$/);
    expect(secrets[0].metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
  });

  it('references the master key, MongoDB URI and Redis URL from Secrets in production, never inlining them', () => {
    const manifests = rendered.production;
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    const configMap = ofKind<Manifest & { data: Record<string, string> }>(manifests, 'ConfigMap')[0];
    expect(Object.keys(configMap.data)).not.toEqual(expect.arrayContaining(['MASTER_KEYS']));
    expect(configMap.data).not.toHaveProperty('MONGODB_URI');
    expect(configMap.data).not.toHaveProperty('REDIS_URL');
    for (const deployment of ofKind<Deployment>(manifests, 'Deployment')) {
      const env = containerOf(deployment).env;
      const fromSecret = (name: string) => env.find((entry) => entry.name === name)?.valueFrom?.secretKeyRef;
      expect(fromSecret('MASTER_KEYS')).toEqual({ name: 'gateway-master-key', key: 'MASTER_KEYS' });
      expect(fromSecret('MONGODB_URI')?.name).toBe('gateway-mongodb');
      expect(fromSecret('REDIS_URL')?.name).toBe('gateway-redis');
      expect(env.filter((entry) => entry.value !== undefined).map((entry) => entry.name)).not.toEqual(
        expect.arrayContaining(['MASTER_KEYS', 'MONGODB_URI', 'REDIS_URL']),
      );
    }
  });

  it('runs production highly available: replicas, disruption budgets, Sentinel, monitoring', () => {
    const manifests = rendered.production;
    const budgets = ofKind<Manifest & { spec: { selector: { matchLabels: Record<string, string> } } }>(
      manifests,
      'PodDisruptionBudget',
    );
    // One for the api and one per worker group.
    expect(budgets).toHaveLength(4);
    const hpa = ofKind<Manifest & { spec: { minReplicas: number } }>(manifests, 'HorizontalPodAutoscaler')[0];
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    for (const object of ofKind<ScaledObject & { spec: { minReplicaCount: number } }>(manifests, 'ScaledObject')) {
      expect(object.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
      for (const trigger of object.spec.triggers as { type: string; authenticationRef?: { name: string } }[]) {
        expect(trigger.type).toBe('redis-sentinel');
        expect(trigger.authenticationRef?.name).toBe('gateway-model-gateway-redis');
      }
    }
    expect(ofKind(manifests, 'ServiceMonitor')).toHaveLength(1);
    expect(ofKind(manifests, 'PrometheusRule')).toHaveLength(1);
  });

  it('carries the rules of prometheus/rules/ in its PrometheusRule, from a copy that matches them', () => {
    const ruleFiles = (dir: string) =>
      readdirSync(join(ROOT, dir))
        .filter((file) => /\.ya?ml$/.test(file) && !/\.test\.ya?ml$/.test(file))
        .sort();
    const source = ruleFiles('prometheus/rules');
    const copy = ruleFiles('deploy/helm/model-gateway/files/rules');
    expect(copy).toEqual(source);
    // The fix, shown in the diff: cp prometheus/rules/*.yml deploy/helm/model-gateway/files/rules/
    const copied = (dir: string, file: string) =>
      `${file} (copy it into the chart's files/rules/): ${read(`${dir}/${file}`)}`;
    for (const file of source)
      expect(copied('deploy/helm/model-gateway/files/rules', file)).toBe(copied('prometheus/rules', file));
    const groups = source.flatMap(
      (file) => (parseYaml(read(`prometheus/rules/${file}`)) as { groups: unknown[] }).groups,
    );
    const rule = ofKind<Manifest & { spec: { groups: unknown[] } }>(rendered.production, 'PrometheusRule')[0];
    expect(rule.spec.groups).toEqual(groups);
  });

  it('fails on a broken template and on manifests the schemas reject', () => {
    const dir = mkdtempSync(join(tmpdir(), 'broken-chart-'));
    try {
      const chart = join(dir, 'model-gateway');
      cpSync(CHART_DIR, chart, { recursive: true });
      const api = join(chart, 'templates', 'api.yaml');
      // An unclosed action: helm can no longer parse the template.
      writeFileSync(api, readFileSync(api, 'utf8').replace('{{ $api.replicas }}', '{{ $api.replicas '));
      expect(helmLint(['values.yaml'], chart).status).not.toBe(0);
      expect(() => helmTemplate(['values.yaml'], [], chart)).toThrow(/helm template failed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A field Kubernetes does not have; a ScaledObject field KEDA does not have, and one without its triggers.
    const [deployment] = ofKind<Deployment>(rendered.default, 'Deployment');
    const misspelt = { ...deployment, spec: { ...deployment.spec, replica: 2 } };
    expect(validateCoreKinds([misspelt]).problems.join('\n')).toContain("'replica' was unexpected");
    const [scaled] = ofKind<ScaledObject>(rendered.default, 'ScaledObject');
    const validators = customResourceValidators();
    const misspeltScaled = { ...scaled, spec: { ...scaled.spec, minReplicas: 2 } };
    expect(validateCustomResource(validators, misspeltScaled).join('\n')).toContain(
      '"additionalProperty":"minReplicas"',
    );
    const withoutTriggers = { ...scaled, spec: { scaleTargetRef: scaled.spec.scaleTargetRef } };
    expect(validateCustomResource(validators, withoutTriggers).join('\n')).toContain('triggers');
  });
});
