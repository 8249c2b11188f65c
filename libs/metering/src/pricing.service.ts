import { CatalogService, ModelSpec } from '@gateway/catalog';
import { Injectable } from '@nestjs/common';

/** Costs are rounded to 1e-8 of the currency. */
const COST_SCALE = 1e8;

/** What calls cost at the catalog's prices (config/models.yaml), in the catalog's currency. */
@Injectable()
export class Pricing {
  constructor(private readonly catalog: CatalogService) {}

  get currency(): string {
    return this.catalog.currency;
  }

  /** A call's cost at the model's token prices. */
  tokenCost(spec: ModelSpec, promptTokens: number, completionTokens = 0): number {
    const input = ((spec.price.per_1k_input_tokens ?? 0) * promptTokens) / 1000;
    const output = ((spec.price.per_1k_output_tokens ?? 0) * completionTokens) / 1000;
    return Math.round((input + output) * COST_SCALE) / COST_SCALE;
  }

  /** What one delivered image is billed. */
  imageUnitPrice(spec: ModelSpec): number {
    return spec.price.per_image ?? 0;
  }

  /** What `images` delivered images cost: n × unit price. */
  imageCost(spec: ModelSpec, images: number): number {
    return Math.round(this.imageUnitPrice(spec) * images * COST_SCALE) / COST_SCALE;
  }
}
