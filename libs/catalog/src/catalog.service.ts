import { AppConfig, GatewayError } from '@gateway/common';
import { Capability, ChatFeature } from '@gateway/contracts';
import { Injectable } from '@nestjs/common';
import { loadCatalogFile } from './catalog-loader';
import { ModelSpec, ResolvedModel, ResolvedRoute, RouteSpec } from './catalog.types';

/** The model catalog with aliases resolved and each route joined to its configured upstream. */
@Injectable()
export class CatalogService {
  readonly currency: string;
  private readonly models: ModelSpec[];
  private readonly byId = new Map<string, ModelSpec>();
  private readonly routes = new Map<string, ResolvedRoute[]>();

  constructor(config: AppConfig) {
    const file = loadCatalogFile(config.MODELS_CONFIG);
    this.currency = file.currency;
    this.models = file.models;
    for (const model of this.models) {
      for (const id of [model.id, ...model.aliases]) this.byId.set(id, model);
      this.routes.set(model.id, this.activeRoutes(model, config));
    }
    // A stand-in takes the other model's id only while that model's upstream is absent, so configuring the
    // upstream later switches the id to the upstream's space as a whole instead of mixing the two.
    for (const model of this.models) {
      if (model.standsIn && !config.upstreams[model.standsIn.whenNoUpstream]) this.byId.set(model.standsIn.for, model);
    }
  }

  list(): ModelSpec[] {
    return this.models;
  }

  find(id: string): ModelSpec | undefined {
    return this.byId.get(id);
  }

  /**
   * The model a job names (its resolved id). Missing only when this process's catalog differs from the api's: a
   * deployment fault, not the caller's, hence a plain Error.
   */
  get(id: string): ModelSpec {
    const spec = this.byId.get(id);
    if (!spec) throw new Error(`model "${id}" is not in this process's catalog`);
    return spec;
  }

  /** The model behind `id` (an id or alias) for `capability`, with the routes this deployment can reach. */
  resolve(id: string, capability: Capability, param = 'model'): ResolvedModel {
    const spec = this.byId.get(id);
    if (!spec || spec.capability !== capability) {
      throw new GatewayError(
        'ModelNotFound',
        `model "${id}" does not exist for ${capability}; GET /v1/models lists the catalog`,
        { param },
      );
    }
    const routes = this.routesOf(spec.id);
    if (routes.length === 0) {
      throw new GatewayError('ModelNotFound', `model "${id}" has no provider configured on this gateway`, { param });
    }
    return { requested: id, spec, routes };
  }

  routesOf(modelId: string): ResolvedRoute[] {
    return this.routes.get(modelId) ?? [];
  }

  /** The routes of a chat model that honour every one of `features`, in fallback order. */
  chatRoutesOf(modelId: string, features: readonly ChatFeature[]): ResolvedRoute[] {
    const routes = this.routesOf(modelId);
    if (features.length === 0) return routes;
    return routes.filter((route) => features.every((feature) => route.features?.includes(feature)));
  }

  private activeRoutes(model: ModelSpec, config: AppConfig): ResolvedRoute[] {
    const active: ResolvedRoute[] = [];
    for (const route of model.routes) {
      if (route.provider === 'local') {
        active.push({ ...route, key: routeKey(route) });
        continue;
      }
      const upstream = route.upstream === undefined ? undefined : config.upstreams[route.upstream];
      if (!upstream) continue;
      active.push({
        ...route,
        key: routeKey(route),
        baseUrl: upstream.baseUrl + (route.base_path ?? ''),
        apiKey: upstream.apiKey,
      });
    }
    return active;
  }
}

/** A route's name in task records, metrics and X-Gateway-Route: `<upstream>:<model>`, `local:<model>` for the engine. */
export function routeKey(route: RouteSpec): string {
  return route.provider === 'local' ? `local:${route.model}` : `${route.upstream}:${route.model}`;
}
