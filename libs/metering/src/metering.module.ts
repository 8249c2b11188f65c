import { Module } from '@nestjs/common';
import { Pricing } from './pricing.service';
import { UpstreamReconciler } from './upstream-reconciler.service';

const SERVICES = [Pricing, UpstreamReconciler];

@Module({ providers: SERVICES, exports: SERVICES })
export class MeteringModule {}
