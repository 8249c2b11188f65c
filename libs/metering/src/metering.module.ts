import { Module } from '@nestjs/common';
import { ImageBilling } from './image-billing.service';
import { Pricing } from './pricing.service';
import { UsageFolder } from './usage-folder.service';
import { UsageReconciler } from './usage-reconciler.service';

const SERVICES = [Pricing, ImageBilling, UsageFolder, UsageReconciler];

@Module({ providers: SERVICES, exports: SERVICES })
export class MeteringModule {}
