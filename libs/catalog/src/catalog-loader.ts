import { readFileSync } from 'node:fs';
import { priceToNanos } from '@gateway/common';
import { CAPABILITIES, Capability, CHAT_FEATURES, ChatFeature } from '@gateway/contracts';
import { Document, isMap, isScalar, parseDocument } from 'yaml';
import {
  ModelPriceNanos,
  ModelSpec,
  PRICE_FIELDS,
  PriceField,
  ProviderName,
  RouteSpec,
  TokenizerName,
  TOKENIZERS,
} from './catalog.types';

const PROVIDERS: ProviderName[] = ['local', 'openai-compatible', 'dashscope'];
/**
 * What a chat route honours when the catalog does not say: an OpenAI-compatible upstream everything OpenAI takes
 * (narrow it per route for servers that take less, as DashScope's compatible mode does), the local engine what it
 * implements (docs/contracts.md, chat).
 */
const DEFAULT_CHAT_FEATURES: Record<ProviderName, readonly ChatFeature[]> = {
  'openai-compatible': CHAT_FEATURES,
  dashscope: [],
  local: ['tools', 'json_object', 'json_schema', 'n', 'penalties', 'logit_bias'],
};

/** Far above any upstream's per-second limit, so a larger figure is a slip (a daily quota written as a rate). */
const MAX_RPS = 10_000;

export interface CatalogFile {
  currency: string;
  models: ModelSpec[];
}

/** Reads and checks config/models.yaml; a broken catalog stops start-up with the entry at fault named. */
export function loadCatalogFile(path: string): CatalogFile {
  const document = parseDocument(readFileSync(path, 'utf8'));
  if (document.errors.length > 0) throw document.errors[0];
  const raw = document.toJS() as { currency?: string; models?: unknown[] };
  if (!raw || !Array.isArray(raw.models)) throw new Error(`${path}: expected a top-level "models" list`);
  const ids = new Set<string>();
  const models = raw.models.map((entry, index) => {
    const model = checkModel(entry as Record<string, unknown>, `${path}: models[${index}]`, document, index);
    for (const id of [model.id, ...model.aliases]) {
      if (ids.has(id)) throw new Error(`${path}: model id or alias "${id}" is defined twice`);
      ids.add(id);
    }
    return model;
  });
  for (const model of models) checkStandIn(model, models, path);
  return { currency: raw.currency ?? 'CNY', models };
}

/**
 * `stands_in: { for: <id>, when_no_upstream: <upstream> }`: the entry answers requests for another model of its
 * capability while that upstream is not configured (CatalogService), under its own id.
 */
function checkStandIn(model: ModelSpec, models: ModelSpec[], path: string): void {
  const { standsIn } = model;
  if (!standsIn) return;
  const target = models.find((other) => other.id === standsIn.for);
  if (model.capability !== 'embeddings' || !target || target === model || target.capability !== model.capability)
    throw new Error(
      `${path}: model "${model.id}" stands in for "${standsIn.for}", which is not another embeddings model of the catalog`,
    );
}

function checkModel(entry: Record<string, unknown>, where: string, document: Document, index: number): ModelSpec {
  if (typeof entry?.id !== 'string' || entry.id === '') throw new Error(`${where}: "id" is required`);
  const at = `${where} (${entry.id})`;
  const capability = entry.capability as Capability;
  if (!CAPABILITIES.includes(capability)) {
    throw new Error(`${at}: capability must be one of ${CAPABILITIES.join(', ')}`);
  }
  if (!Array.isArray(entry.routes) || entry.routes.length === 0)
    throw new Error(`${at}: at least one route is required`);
  const routes = entry.routes.map((route, i) => {
    const where = `${at} routes[${i}]`;
    const checked = checkRoute(route as Record<string, unknown>, where, capability);
    // Read from the YAML source, as the model's price is: never through a float.
    const price = document.getIn(['models', index, 'routes', i, 'price'], true);
    return price === undefined ? checked : { ...checked, priceNanos: checkPrice(price, where) };
  });
  checkSpaces(routes, at, entry.id);
  const tokenizer = checkTokenizer(entry.tokenizer, at) ?? routes[0].tokenizer ?? 'cl100k_base';
  // YAML reads a bare date as a Date; a quoted one stays text.
  const created =
    entry.created instanceof Date
      ? entry.created
      : new Date(typeof entry.created === 'string' ? entry.created : '1970-01-01');
  return {
    id: entry.id,
    capability: entry.capability as Capability,
    family: typeof entry.family === 'string' ? entry.family : undefined,
    aliases: Array.isArray(entry.aliases) ? entry.aliases.map(String) : [],
    created: Math.floor(created.getTime() / 1000),
    limits: (entry.limits as ModelSpec['limits']) ?? {},
    priceNanos: checkPrice(document.getIn(['models', index, 'price'], true), at),
    routes: routes.map((route) => ({ ...route, tokenizer: route.tokenizer ?? tokenizer })),
    tokenizer,
    deprecated: typeof entry.deprecated === 'string' ? entry.deprecated : undefined,
    ...checkStandInField(entry.stands_in, at),
  };
}

/**
 * One model id, one vector space: a fallback to a route of another space would hand the caller vectors it cannot
 * compare with those it already stored, under the same id.
 */
function checkSpaces(routes: RouteSpec[], at: string, id: string): void {
  const spaces = [...new Set(routes.flatMap((route) => (route.space === undefined ? [] : [route.space])))];
  if (spaces.length > 1)
    throw new Error(
      `${at}: the routes of model "${id}" embed into different vector spaces (${spaces.join(', ')}); ` +
        'one model id serves one space: give the other space its own model entry',
    );
}

/** `tokenizer:` on a model or a route names one the gateway has (tokenizers/). */
function checkTokenizer(value: unknown, at: string): TokenizerName | undefined {
  if (value === undefined) return undefined;
  if (!TOKENIZERS.includes(value as TokenizerName))
    throw new Error(`${at}: tokenizer must be one of ${TOKENIZERS.join(', ')}; not ${JSON.stringify(value)}`);
  return value as TokenizerName;
}

function checkStandInField(value: unknown, at: string): Pick<ModelSpec, 'standsIn'> {
  if (value === undefined) return {};
  const field = value as Record<string, unknown>;
  if (typeof field?.for !== 'string' || typeof field.when_no_upstream !== 'string')
    throw new Error(`${at}: stands_in must be { for: <model id>, when_no_upstream: <upstream name> }`);
  return { standsIn: { for: field.for, whenNoUpstream: field.when_no_upstream } };
}

/**
 * A model's prices in nanos, converted once here from the decimals as written in the file (the YAML source text,
 * never a float), so nothing downstream does money in floating point.
 */
function checkPrice(node: unknown, at: string): ModelPriceNanos {
  if (node === undefined || node === null) return {};
  if (!isMap(node)) throw new Error(`${at}: "price" must be a map of ${PRICE_FIELDS.join(', ')}`);
  const price: ModelPriceNanos = {};
  for (const { key, value } of node.items) {
    const field = String(isScalar(key) ? key.value : key);
    if (!PRICE_FIELDS.includes(field as PriceField))
      throw new Error(`${at}: price.${field} is not a price; use ${PRICE_FIELDS.join(', ')}`);
    // A plain number keeps its source text; a quoted price is text already.
    const written = isScalar(value) ? (typeof value.value === 'string' ? value.value : value.source) : undefined;
    price[field as PriceField] = priceToNanos(written ?? String(value), `${at}: price.${field}`);
  }
  return price;
}

/** What a route may say in the catalog; anything else is a slip (a misspelt limit would leave the route unlimited). */
const ROUTE_FIELDS = [
  'provider',
  'upstream',
  'model',
  'base_path',
  'max_concurrency',
  'max_rps',
  'features',
  'dialect',
  'responses',
  'batch_size',
  'space',
  'tokenizer',
  'price',
];

function checkRoute(route: Record<string, unknown>, at: string, capability: Capability): RouteSpec {
  const provider = route?.provider;
  if (!PROVIDERS.includes(provider as ProviderName))
    throw new Error(`${at}: provider must be one of ${PROVIDERS.join(', ')}`);
  const unknownField = Object.keys(route).find((field) => !ROUTE_FIELDS.includes(field));
  if (unknownField !== undefined)
    throw new Error(`${at}: ${unknownField} is not a route field; a route takes ${ROUTE_FIELDS.join(', ')}`);
  const { model, upstream, base_path, max_concurrency, max_rps, dialect, batch_size, space } = route;
  if (typeof model !== 'string') throw new Error(`${at}: "model" is required`);
  if (provider !== 'local' && typeof upstream !== 'string')
    throw new Error(`${at}: "upstream" is required for ${String(provider)}`);
  if (base_path !== undefined && typeof base_path !== 'string')
    throw new Error(`${at}: base_path must be a path such as /compatible-mode/v1`);
  if (max_concurrency !== undefined && !isWholeNumber(max_concurrency))
    throw new Error(`${at}: max_concurrency must be a whole number of calls in flight, at least 1`);
  if (max_rps !== undefined && !(typeof max_rps === 'number' && max_rps > 0 && max_rps <= MAX_RPS))
    throw new Error(
      `${at}: max_rps must be a number of calls per second above 0 and at most ${MAX_RPS}, e.g. 2 or 0.5`,
    );
  if (dialect !== undefined && dialect !== 'openai' && dialect !== 'dashscope')
    throw new Error(`${at}: dialect must be openai or dashscope`);
  if (batch_size !== undefined && !isWholeNumber(batch_size))
    throw new Error(`${at}: batch_size must be a whole number of inputs per upstream call, at least 1`);
  checkResponses(route, at, capability);
  const tokenizer = checkTokenizer(route.tokenizer, at);
  if (space !== undefined && (capability !== 'embeddings' || typeof space !== 'string' || !space))
    throw new Error(`${at}: space is the vector space of an embeddings route, e.g. dashscope/text-embedding-v4`);
  const spec: RouteSpec = {
    provider: provider as ProviderName,
    model,
    ...(typeof upstream === 'string' ? { upstream } : {}),
    ...(base_path !== undefined ? { base_path } : {}),
    ...(max_concurrency !== undefined ? { max_concurrency } : {}),
    ...(max_rps !== undefined ? { max_rps } : {}),
    ...(dialect !== undefined ? { dialect } : {}),
    ...(route.responses === true ? { responses: true } : {}),
    ...(batch_size !== undefined ? { batch_size } : {}),
    ...(tokenizer !== undefined ? { tokenizer } : {}),
  };
  if (capability === 'embeddings')
    return { ...spec, space: space ?? `${spec.provider === 'local' ? 'local' : spec.upstream}/${spec.model}` };
  if (capability !== 'chat') return spec;
  return { ...spec, features: checkFeatures(route.features, at) ?? [...DEFAULT_CHAT_FEATURES[spec.provider]] };
}

function isWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

/**
 * `responses: true` says an OpenAI-compatible upstream serves POST /responses as OpenAI does. DashScope's compatible
 * mode has such an endpoint, but it processes only the fields it lists and ignores any other OpenAI field, which the
 * gateway would then have accepted and silently dropped: its routes get the translation instead.
 */
function checkResponses(route: Record<string, unknown>, at: string, capability: Capability): void {
  const { responses } = route;
  if (responses === undefined || responses === false) return;
  if (responses !== true) throw new Error(`${at}: responses must be true or false`);
  if (capability !== 'chat' || route.provider !== 'openai-compatible')
    throw new Error(`${at}: responses: true is for chat routes of openai-compatible upstreams`);
  if (route.dialect === 'dashscope')
    throw new Error(
      `${at}: responses: true is not for dialect: dashscope; DashScope's Responses endpoint ignores OpenAI fields it does not list`,
    );
}

function checkFeatures(features: unknown, at: string): ChatFeature[] | undefined {
  if (features === undefined) return undefined;
  const unknown = Array.isArray(features)
    ? features.filter((feature) => !CHAT_FEATURES.includes(feature as ChatFeature))
    : [features];
  if (unknown.length > 0)
    throw new Error(`${at}: features must be a list of ${CHAT_FEATURES.join(', ')}; not ${String(unknown[0])}`);
  return features as ChatFeature[];
}
