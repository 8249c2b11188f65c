export * from './webhook-signature';
export * from './webhook-event';
export * from './budget-event';
export * from './retry-schedule';
export * from './webhook-sender';
export * from './webhook-jobs.service';
