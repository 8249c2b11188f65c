import { CatalogService } from '@gateway/catalog';
import { ApiAuthGuard } from '@gateway/tenancy';
import { Controller, Get, UseGuards } from '@nestjs/common';

/** The catalog in OpenAI's list shape; aliases are listed too, each naming the model it resolves to. */
@Controller('v1/models')
@UseGuards(ApiAuthGuard)
export class ModelsController {
  constructor(private readonly catalog: CatalogService) {}

  @Get()
  list() {
    const data = this.catalog.list().flatMap((model) => {
      const entry = {
        id: model.id,
        object: 'model',
        created: model.created,
        owned_by: 'model-gateway',
        capability: model.capability,
        available: this.catalog.routesOf(model.id).length > 0,
        ...(model.family ? { family: model.family } : {}),
        ...(model.deprecated ? { deprecated: model.deprecated } : {}),
      };
      return [entry, ...model.aliases.map((alias) => ({ ...entry, id: alias, alias_of: model.id }))];
    });
    return { object: 'list', data };
  }
}
