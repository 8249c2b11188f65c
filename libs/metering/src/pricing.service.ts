import { CatalogService, ModelSpec } from '@gateway/catalog';
import { imageCostNanos, tokenCostNanos } from '@gateway/common';
import { Injectable } from '@nestjs/common';

/** What calls cost at the catalog's prices (config/models.yaml), in integer nanos of the catalog's currency. */
@Injectable()
export class Pricing {
  constructor(private readonly catalog: CatalogService) {}

  get currency(): string {
    return this.catalog.currency;
  }

  /** A call's cost at the model's token prices, rounded half up to 1 nano. */
  tokenCostNanos(spec: ModelSpec, promptTokens: number, completionTokens = 0): number {
    const price = spec.priceNanos;
    return tokenCostNanos(
      price.per_1k_input_tokens ?? 0,
      price.per_1k_output_tokens ?? 0,
      promptTokens,
      completionTokens,
    );
  }

  /** What one delivered image is billed. */
  imageUnitPriceNanos(spec: ModelSpec): number {
    return spec.priceNanos.per_image ?? 0;
  }

  /** What `images` delivered images cost: n × unit price. */
  imageCostNanos(spec: ModelSpec, images: number): number {
    return imageCostNanos(this.imageUnitPriceNanos(spec), images);
  }
}
