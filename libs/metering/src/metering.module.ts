import { Module } from '@nestjs/common';
import { ImageBilling } from './image-billing.service';
import { Pricing } from './pricing.service';
import { UsageRollups } from './usage-rollups.service';

@Module({ providers: [Pricing, ImageBilling, UsageRollups], exports: [Pricing, ImageBilling, UsageRollups] })
export class MeteringModule {}
