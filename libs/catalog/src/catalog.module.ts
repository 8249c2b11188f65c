import { Global, Module } from '@nestjs/common';
import { CatalogService } from './catalog.service';
import { Pricing } from './pricing.service';

@Global()
@Module({ providers: [CatalogService, Pricing], exports: [CatalogService, Pricing] })
export class CatalogModule {}
