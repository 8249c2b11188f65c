import { Global, Module } from '@nestjs/common';
import { DeliveredTasks } from './delivered-tasks';
import { OutcomeDelivery } from './outcome-delivery';
import { UpstreamReconciler } from './upstream-reconciler.service';
import { UsageLedger } from './usage-ledger';
import { UsageReconciler } from './usage-reconciler.service';

const SERVICES = [OutcomeDelivery, DeliveredTasks, UsageLedger, UsageReconciler, UpstreamReconciler];

/**
 * What happened to each task, once (docs/decisions/exact-usage.md): delivery, the records still to be written and
 * the usage still to be folded, and the reconciliations of a day's usage and of the upstreams' bills. A worker also
 * runs RecordWriter and UsageFolding, which it provides itself; the api and the CLI only read and reconcile.
 */
@Global()
@Module({ providers: SERVICES, exports: SERVICES })
export class LedgerModule {}
