import { CatalogService } from '@gateway/catalog';
import { formatNanos } from '@gateway/common';
import { Controller, Get, UseGuards } from '@nestjs/common';
import { ConsoleSessionGuard } from '../auth/console-session.guard';

/** The whole catalog for the console: every model with its aliases, dated snapshots, limits and prices. */
@Controller('console/api/models')
@UseGuards(ConsoleSessionGuard)
export class ConsoleModelsController {
  constructor(private readonly catalog: CatalogService) {}

  @Get()
  list() {
    const models = this.catalog.list();
    return {
      currency: this.catalog.currency,
      data: models.map((model) => ({
        id: model.id,
        capability: model.capability,
        family: model.family ?? null,
        aliases: model.aliases,
        // The other dated models of its family.
        snapshots: model.family
          ? models.filter((other) => other.family === model.family && other.id !== model.id).map((other) => other.id)
          : [],
        available: this.catalog.routesOf(model.id).length > 0,
        deprecated: model.deprecated ?? null,
        limits: model.limits,
        // As written in config/models.yaml: exact decimals of the catalog currency.
        price: Object.fromEntries(
          Object.entries(model.priceNanos).map(([field, nanos]) => [field, formatNanos(nanos)]),
        ),
      })),
    };
  }
}
