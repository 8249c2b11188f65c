import { formatNanos } from '@gateway/common';
import type { CatalogModelView } from '@gateway/contracts';
import { CatalogService } from './catalog.service';
import { ModelSpec, PriceField } from './catalog.types';

/** How each price field reads for people: its unit, and what to multiply the written price by to get there. */
const PRICE_UNITS: Record<PriceField, { unit: CatalogModelView['prices'][number]['unit']; times: number }> = {
  per_1k_input_tokens: { unit: '1m_input_tokens', times: 1000 },
  per_1k_output_tokens: { unit: '1m_output_tokens', times: 1000 },
  per_image: { unit: 'image', times: 1 },
};

/**
 * The catalog for the console's people: every model with its aliases, dated snapshots, limits, prices per 1M
 * tokens or per image (exact decimals, multiplied in BigInt nanos), where it runs and what it accepts.
 */
export function catalogView(catalog: CatalogService): { currency: string; data: CatalogModelView[] } {
  const models = catalog.list();
  return { currency: catalog.currency, data: models.map((model) => modelView(catalog, models, model)) };
}

function modelView(catalog: CatalogService, models: ModelSpec[], model: ModelSpec): CatalogModelView {
  const routes = catalog.routesOf(model.id);
  const features = new Set(routes.flatMap((route) => route.features ?? []));
  const priced = Object.entries(model.priceNanos) as [PriceField, number][];
  return {
    id: model.id,
    capability: model.capability,
    family: model.family ?? null,
    aliases: model.aliases,
    snapshots: model.family
      ? models.filter((other) => other.family === model.family && other.id !== model.id).map((other) => other.id)
      : [],
    available: routes.length > 0,
    deprecated: model.deprecated ?? null,
    limits: { ...model.limits },
    price: Object.fromEntries(priced.map(([field, nanos]) => [field, formatNanos(nanos)])),
    prices: priced.map(([field, nanos]) => ({
      unit: PRICE_UNITS[field].unit,
      amount: formatNanos(BigInt(nanos) * BigInt(PRICE_UNITS[field].times)),
    })),
    free: priced.every(([, nanos]) => nanos === 0),
    runs_on: [
      ...new Set(routes.map((route): 'local' | 'upstream' => (route.provider === 'local' ? 'local' : 'upstream'))),
    ],
    accepts: {
      tools: features.has('tools'),
      structured_output: features.has('json_schema'),
      vision: features.has('image_input'),
      dimensions: model.limits.dimensions ?? null,
    },
  };
}
