import { catalogView, CatalogService } from '@gateway/catalog';
import { Controller, Get, UseGuards } from '@nestjs/common';
import { ConsoleSessionGuard } from '../auth/console-session.guard';

/**
 * The whole catalog for the console: every model with its aliases, dated snapshots, limits, prices per 1M tokens or
 * per image, where it runs and what it accepts (libs/catalog catalog-view).
 */
@Controller('console/api/models')
@UseGuards(ConsoleSessionGuard)
export class ConsoleModelsController {
  constructor(private readonly catalog: CatalogService) {}

  @Get()
  list() {
    return catalogView(this.catalog);
  }
}
