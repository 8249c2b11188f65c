import { Counter, Registry } from 'prom-client';
import { ApplicationCounter, ApplicationLabels, OTHER_APPLICATIONS } from './application-metrics';

describe('per-application counters', () => {
  const setUp = (limit: number, second?: string) => {
    const registry = new Registry();
    const counter = new Counter({
      name: 'app_things_total',
      help: 'things',
      labelNames: second ? ['app', second] : ['app'],
      registers: [registry],
    });
    return { registry, counter: new ApplicationCounter(counter, new ApplicationLabels(limit), second) };
  };
  const seriesOf = async (registry: Registry) => (await registry.getMetricsAsJSON())[0].values;

  it('labels the first applications by id and counts the rest under app="other", so series stay bounded', async () => {
    const { registry, counter } = setUp(2);
    for (const app of ['a', 'b', 'c', 'd', 'a', 'e']) counter.inc(app);
    expect((await seriesOf(registry)).map((s) => [s.labels.app, s.value])).toEqual([
      ['a', 2],
      ['b', 1],
      [OTHER_APPLICATIONS, 3],
    ]);
  });

  it('keeps one application under its own label in every family that shares the labels', async () => {
    const labels = new ApplicationLabels(1);
    expect([labels.labelOf('a'), labels.labelOf('b'), labels.labelOf('a')]).toEqual(['a', OTHER_APPLICATIONS, 'a']);
  });

  it('counts by a second label, per application, amounts as given', async () => {
    const { registry, counter } = setUp(1, 'code');
    counter.inc('a', 1, 'RateLimited');
    counter.inc('a', 1, 'RateLimited');
    counter.inc('a', 1, 'QuotaExceeded');
    counter.inc('b', 0.5, 'RateLimited');
    expect((await seriesOf(registry)).map((s) => [s.labels.app, s.labels.code, s.value])).toEqual([
      ['a', 'RateLimited', 2],
      ['a', 'QuotaExceeded', 1],
      [OTHER_APPLICATIONS, 'RateLimited', 0.5],
    ]);
  });

  it('labels no application with a limit of 0', async () => {
    const { registry, counter } = setUp(0);
    counter.inc('a');
    expect((await seriesOf(registry)).map((s) => s.labels.app)).toEqual([OTHER_APPLICATIONS]);
  });
});
