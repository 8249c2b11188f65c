import { Module } from '@nestjs/common';
import { UsageRollups } from './usage-rollups.service';

@Module({ providers: [UsageRollups], exports: [UsageRollups] })
export class MeteringModule {}
