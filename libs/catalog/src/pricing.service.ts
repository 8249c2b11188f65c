import { CatalogService } from './catalog.service';
import type { ModelPriceNanos, ModelSpec, RouteSpec } from './catalog.types';
import { tokenCostNanos } from '@gateway/common';
import { Injectable } from '@nestjs/common';

/** What calls cost at the catalog's prices (config/models.yaml), in integer nanos of the catalog's currency. */
@Injectable()
export class Pricing {
  constructor(private readonly catalog: CatalogService) {}

  get currency(): string {
    return this.catalog.currency;
  }

  /**
   * A call's cost at the token prices of what served it (the route's, else the model's), rounded half up to 1 nano.
   */
  tokenCostNanos(spec: ModelSpec, promptTokens: number, completionTokens = 0, route?: RouteSpec): number {
    const price = priceOf(spec, route);
    return tokenCostNanos(
      price.per_1k_input_tokens ?? 0,
      price.per_1k_output_tokens ?? 0,
      promptTokens,
      completionTokens,
    );
  }

  /** What one image delivered by `route` is billed: the route's unit price, else the model's. */
  imageUnitPriceNanos(spec: ModelSpec, route?: RouteSpec): number {
    return priceOf(spec, route).per_image ?? 0;
  }
}

/** The model's prices with the route's own (`price:` on the route) in their place. */
function priceOf(spec: ModelSpec, route: RouteSpec | undefined): ModelPriceNanos {
  return route?.priceNanos ? { ...spec.priceNanos, ...route.priceNanos } : spec.priceNanos;
}
