import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogFile } from './catalog-loader';

/** One folder for the spec's catalogs, removed after it. */
const folder = mkdtempSync(join(tmpdir(), 'catalog-'));
let written = 0;
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function catalog(yaml: string): string {
  const file = join(folder, `models-${++written}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

describe('catalog loader', () => {
  it('loads the shipped catalog with every model id of the spec', () => {
    const { models } = loadCatalogFile(join(__dirname, '../../../config/models.yaml'));
    const ids = models.flatMap((m) => [m.id, ...m.aliases]);
    expect(ids).toEqual(
      expect.arrayContaining([
        'x-image-edit-plus',
        'x-image-edit-plus-2025-12-15',
        'x-image-edit-plus-2025-10-30',
        'x-image-edit',
        'text-embedding-v4',
      ]),
    );
    expect(models.find((m) => m.aliases.includes('x-image-edit-plus'))!.id).toBe('x-image-edit-plus-2025-12-15');
    expect(models.some((m) => m.capability === 'chat')).toBe(true);
  });

  it('names the entry at fault', () => {
    expect(() =>
      loadCatalogFile(
        catalog('models:\n  - id: a\n    capability: painting\n    routes: [{provider: local, model: m}]\n'),
      ),
    ).toThrow(/models\[0\] \(a\): capability/);
    expect(() =>
      loadCatalogFile(
        catalog('models:\n  - id: a\n    capability: chat\n    routes: [{provider: openai-compatible, model: m}]\n'),
      ),
    ).toThrow(/"upstream" is required/);
  });

  it('converts prices to integer nanos once, from the decimals as written', () => {
    const { models } = loadCatalogFile(join(__dirname, '../../../config/models.yaml'));
    const priceOf = (id: string) => models.find((m) => m.id === id)!.priceNanos;
    expect(priceOf('text-embedding-v4')).toEqual({ per_1k_input_tokens: 500_000 });
    expect(priceOf('x-image-edit-plus-2025-12-15')).toEqual({ per_image: 200_000_000 });
    const written = loadCatalogFile(
      catalog(
        "models:\n  - {id: a, capability: chat, price: {per_1k_input_tokens: 0.0007, per_1k_output_tokens: '1e-9'}, routes: [{provider: local, model: m}]}\n",
      ),
    );
    expect(written.models[0].priceNanos).toEqual({ per_1k_input_tokens: 700_000, per_1k_output_tokens: 1 });
  });

  it('refuses a price that is negative, finer than 1 nano or not a price field, naming the model and field', () => {
    const withPrice = (price: string) =>
      catalog(`models:\n  - {id: a, capability: embeddings, price: ${price}, routes: [{provider: local, model: m}]}\n`);
    expect(() => loadCatalogFile(withPrice('{per_1k_input_tokens: 0.0000000005}'))).toThrow(
      /models\[0\] \(a\): price\.per_1k_input_tokens is 0\.0000000005, finer than the smallest amount the gateway counts, 1 nano/,
    );
    expect(() => loadCatalogFile(withPrice('{per_image: -0.2}'))).toThrow(
      /models\[0\] \(a\): price\.per_image must not be negative/,
    );
    expect(() => loadCatalogFile(withPrice('{per_1k_tokens: 0.0005}'))).toThrow(
      /models\[0\] \(a\): price\.per_1k_tokens is not a price/,
    );
    expect(() => loadCatalogFile(withPrice('{per_image: cheap}'))).toThrow(/price\.per_image must be a decimal number/);
  });

  it("reads a route's max_rps and refuses one that is not a positive number of calls per second", () => {
    const withRps = (rps: string) =>
      catalog(`models:\n  - {id: a, capability: chat, routes: [{provider: local, model: m, max_rps: ${rps}}]}\n`);
    expect(loadCatalogFile(withRps('0.5')).models[0].routes[0].max_rps).toBe(0.5);
    for (const rps of ['0', '-2', "'2'", '.nan', '20000']) {
      expect(() => loadCatalogFile(withRps(rps))).toThrow(/models\[0\] \(a\) routes\[0\]: max_rps must be a number/);
    }
    const { models } = loadCatalogFile(join(__dirname, '../../../config/models.yaml'));
    const dashscopeImageRoutes = models.flatMap((m) => m.routes).filter((r) => r.provider === 'dashscope');
    expect(dashscopeImageRoutes.map((r) => r.max_rps)).toEqual([2, 2, 2]);
  });

  it('checks every field of a route, and refuses one it does not know, naming the entry', () => {
    const withRoute = (fields: string) =>
      catalog(`models:\n  - {id: a, capability: chat, routes: [{provider: local, model: m, ${fields}}]}\n`);
    const route = loadCatalogFile(withRoute('max_concurrency: 4, base_path: /v2')).models[0].routes[0];
    expect(route).toMatchObject({ max_concurrency: 4, base_path: '/v2' });
    expect(route).not.toHaveProperty('price');
    for (const bad of ["'4'", '0', '1.5']) {
      expect(() => loadCatalogFile(withRoute(`max_concurrency: ${bad}`))).toThrow(
        /models\[0\] \(a\) routes\[0\]: max_concurrency must be a whole number of calls in flight, at least 1/,
      );
    }
    expect(() => loadCatalogFile(withRoute('base_path: 3'))).toThrow(
      /routes\[0\]: base_path must be a path such as \/compatible-mode\/v1/,
    );
    // A misspelt limit was silently ignored, leaving the route unlimited.
    expect(() => loadCatalogFile(withRoute('max_concurency: 4'))).toThrow(
      /models\[0\] \(a\) routes\[0\]: max_concurency is not a route field; a route takes provider, upstream, model/,
    );
  });

  it('reads a chat route whose upstream has the Responses endpoint, and refuses the flag anywhere else', () => {
    const withRoute = (capability: string, route: string) =>
      catalog(`models:\n  - {id: a, capability: ${capability}, routes: [${route}]}\n`);
    const openai = '{provider: openai-compatible, upstream: openai, model: m';
    expect(loadCatalogFile(withRoute('chat', `${openai}, responses: true}`)).models[0].routes[0].responses).toBe(true);
    expect(loadCatalogFile(withRoute('chat', `${openai}}`)).models[0].routes[0].responses).toBeUndefined();
    expect(() => loadCatalogFile(withRoute('chat', `${openai}, responses: 'yes'}`))).toThrow(
      /routes\[0\]: responses must be true or false/,
    );
    expect(() => loadCatalogFile(withRoute('embeddings', `${openai}, responses: true}`))).toThrow(
      /responses: true is for chat routes of openai-compatible upstreams/,
    );
    expect(() => loadCatalogFile(withRoute('chat', '{provider: local, model: m, responses: true}'))).toThrow(
      /responses: true is for chat routes of openai-compatible upstreams/,
    );
    expect(() => loadCatalogFile(withRoute('chat', `${openai}, dialect: dashscope, responses: true}`))).toThrow(
      /not for dialect: dashscope/,
    );
    const { models } = loadCatalogFile(join(__dirname, '../../../config/models.yaml'));
    const chat = models.find((m) => m.id === 'x-chat')!;
    expect(chat.routes.map((route) => [route.upstream, route.responses ?? false])).toEqual([
      ['openai', true],
      ['dashscope', false],
      [undefined, false],
    ]);
  });

  it("takes a model's tokenizer as written, else its first route's, else cl100k_base, and gives routes the model's", () => {
    const { models } = loadCatalogFile(
      catalog(`models:
  - id: declared
    capability: chat
    tokenizer: qwen2
    routes: [{ provider: openai-compatible, upstream: o, model: gpt-4o-mini, tokenizer: o200k_base }, { provider: local, model: m }]
  - id: by-route
    capability: chat
    routes: [{ provider: openai-compatible, upstream: o, model: gpt-4o-mini, tokenizer: o200k_base }, { provider: local, model: m }]
  - id: default
    capability: embeddings
    routes: [{ provider: local, model: m }]
`),
    );
    const tokenizers = models.map((m) => [m.tokenizer, ...m.routes.map((route) => route.tokenizer)]);
    expect(tokenizers).toEqual([
      ['qwen2', 'o200k_base', 'qwen2'],
      ['o200k_base', 'o200k_base', 'o200k_base'],
      ['cl100k_base', 'cl100k_base'],
    ]);
    const shipped = loadCatalogFile(join(__dirname, '../../../config/models.yaml')).models;
    expect(shipped.find((m) => m.id === 'text-embedding-v4')!.tokenizer).toBe('qwen2');
    expect(shipped.find((m) => m.id === 'x-chat')!.routes.map((route) => route.tokenizer)).toEqual([
      'o200k_base',
      'qwen2',
      'o200k_base',
    ]);
  });

  it('refuses a tokenizer the gateway does not have, naming the entry', () => {
    const yaml = (where: string) =>
      where === 'model'
        ? 'models:\n  - id: a\n    capability: chat\n    tokenizer: gpt2\n    routes: [{provider: local, model: m}]\n'
        : 'models:\n  - id: a\n    capability: chat\n    routes: [{provider: local, model: m, tokenizer: gpt2}]\n';
    expect(() => loadCatalogFile(catalog(yaml('model')))).toThrow(
      /models\[0\] \(a\): tokenizer must be one of cl100k_base, o200k_base, qwen2; not "gpt2"/,
    );
    expect(() => loadCatalogFile(catalog(yaml('route')))).toThrow(/routes\[0\]: tokenizer must be one of/);
  });

  it('refuses an id defined twice, alias included', () => {
    const yaml =
      'models:\n  - {id: a, capability: chat, aliases: [b], routes: [{provider: local, model: m}]}\n  - {id: b, capability: chat, routes: [{provider: local, model: m}]}\n';
    expect(() => loadCatalogFile(catalog(yaml))).toThrow(/"b" is defined twice/);
  });
  it('refuses a model whose embedding routes embed into different vector spaces, naming the model', () => {
    const embeddings = (routes: string) =>
      catalog(`models:\n  - {id: text-embedding-v4, capability: embeddings, routes: [${routes}]}\n`);
    // The space left out is <upstream>/<model>: the same model name at two upstreams is two spaces.
    expect(() =>
      loadCatalogFile(
        embeddings(
          '{provider: openai-compatible, upstream: dashscope, model: text-embedding-v4}, {provider: openai-compatible, upstream: openai, model: text-embedding-v4}',
        ),
      ),
    ).toThrow(
      /\(text-embedding-v4\): the routes of model "text-embedding-v4" embed into different vector spaces \(dashscope\/text-embedding-v4, openai\/text-embedding-v4\)/,
    );
    expect(() =>
      loadCatalogFile(
        embeddings(
          '{provider: openai-compatible, upstream: dashscope, model: text-embedding-v4, space: dashscope/text-embedding-v4}, {provider: local, model: all-minilm-l6-v2}',
        ),
      ),
    ).toThrow(
      /model "text-embedding-v4" embed into different vector spaces \(dashscope\/text-embedding-v4, local\/all-minilm-l6-v2\)/,
    );
    // Two upstreams serving one model: declared as one space, loaded, every route's space set.
    const shared = loadCatalogFile(
      embeddings(
        '{provider: openai-compatible, upstream: a, model: m, space: x/m}, {provider: openai-compatible, upstream: b, model: m, space: x/m}',
      ),
    );
    expect(shared.models[0].routes.map((route) => route.space)).toEqual(['x/m', 'x/m']);
    expect(loadCatalogFile(embeddings('{provider: local, model: m}')).models[0].routes[0].space).toBe('local/m');
  });

  it("gives the shipped text-embedding-v4 DashScope's space only, and the local one its own id standing in", () => {
    const { models } = loadCatalogFile(join(__dirname, '../../../config/models.yaml'));
    const v4 = models.find((m) => m.id === 'text-embedding-v4')!;
    expect(new Set(v4.routes.map((route) => route.space))).toEqual(new Set(['dashscope/text-embedding-v4']));
    const local = models.find((m) => m.standsIn?.for === 'text-embedding-v4')!;
    expect(local).toMatchObject({ id: 'text-embedding-v4-local', standsIn: { whenNoUpstream: 'dashscope' } });
    expect(local.routes.map((route) => route.space)).toEqual(['local/all-minilm-l6-v2']);
  });

  it('refuses a stand-in for a model the catalog does not have', () => {
    const yaml =
      'models:\n  - {id: a, capability: embeddings, stands_in: {for: b, when_no_upstream: up}, routes: [{provider: local, model: m}]}\n';
    expect(() => loadCatalogFile(catalog(yaml))).toThrow(
      /model "a" stands in for "b", which is not another embeddings model/,
    );
  });
});
