import { CatalogService, ModelLimits, ModelSpec, ProviderName } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { Capability, CHAT_FEATURES, ChatFeature } from '@gateway/contracts';

/**
 * A catalog model as GET /v1/models and GET /v1/models/{id} show it: OpenAI's model object (`id`, `object`,
 * `created`, `owned_by`), which the SDKs' `models.list` / `models.retrieve` read, plus what the gateway knows of the
 * model (docs/contracts.md, "GET /v1/models").
 */
export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'model-gateway';
  capability: Capability;
  /** Whether any route of the model is configured on this gateway. */
  available: boolean;
  family?: string;
  deprecated?: string;
  /** On an alias: the model it resolves to. */
  alias_of?: string;
  /** The catalog's limits as written (max_tokens; max_inputs, dimensions; max_images, max_n, …). */
  limits: ModelLimits;
  /** Chat: every feature at least one configured route honours, in CHAT_FEATURES order. */
  features?: ChatFeature[];
  /**
   * Chat: the configured routes in fallback order, each with the features it honours, and `responses` where its
   * upstream takes POST /v1/responses as sent rather than translated to chat.
   */
  routes?: { provider: ProviderName; features: ChatFeature[]; responses?: true }[];
}

/** Every model and alias of the catalog, each alias right after its model. */
export function listModels(catalog: CatalogService): ModelEntry[] {
  return catalog.list().flatMap((model) => {
    const entry = entryOf(catalog, model);
    return [entry, ...model.aliases.map((alias) => ({ ...entry, id: alias, alias_of: model.id }))];
  });
}

/** One model by its id or an alias, as the list shows it; one the catalog lacks is 404 NotFound. */
export function retrieveModel(catalog: CatalogService, id: string): ModelEntry {
  const model = catalog.find(id);
  if (!model) {
    throw new GatewayError('NotFound', `model "${id}" does not exist; GET /v1/models lists the catalog`, {
      param: 'model',
    });
  }
  const entry = entryOf(catalog, model);
  return id === model.id ? entry : { ...entry, id, alias_of: model.id };
}

function entryOf(catalog: CatalogService, model: ModelSpec): ModelEntry {
  const routes = catalog.routesOf(model.id);
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: 'model-gateway',
    capability: model.capability,
    available: routes.length > 0,
    ...(model.family ? { family: model.family } : {}),
    ...(model.deprecated ? { deprecated: model.deprecated } : {}),
    limits: model.limits,
    ...(model.capability === 'chat'
      ? {
          // A feature counts when some reachable route honours it: the router sends such a request only there.
          features: CHAT_FEATURES.filter((feature) => routes.some((route) => route.features?.includes(feature))),
          routes: routes.map((route) => ({
            provider: route.provider,
            features: route.features ?? [],
            ...(route.responses ? { responses: true as const } : {}),
          })),
        }
      : {}),
  };
}
