import { CatalogService } from '@gateway/catalog';
import { ApiAuthGuard } from '@gateway/tenancy';
import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { listModels, retrieveModel } from './model-entries';

/** The catalog in OpenAI's model shapes (model-entries.ts); aliases are listed too, each naming the model it resolves to. */
@Controller('v1/models')
@UseGuards(ApiAuthGuard)
export class ModelsController {
  constructor(private readonly catalog: CatalogService) {}

  @Get()
  list() {
    return { object: 'list', data: listModels(this.catalog) };
  }

  @Get(':id')
  retrieve(@Param('id') id: string) {
    return retrieveModel(this.catalog, id);
  }
}
