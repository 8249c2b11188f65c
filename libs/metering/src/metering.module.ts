import { Module } from '@nestjs/common';
import { ImageBilling } from './image-billing.service';
import { Pricing } from './pricing.service';
import { UsageFolder } from './usage-folder.service';
import { UpstreamReconciler } from './upstream-reconciler.service';
import { UsageReconciler } from './usage-reconciler.service';

const SERVICES = [Pricing, ImageBilling, UsageFolder, UsageReconciler, UpstreamReconciler];

@Module({ providers: SERVICES, exports: SERVICES })
export class MeteringModule {}
