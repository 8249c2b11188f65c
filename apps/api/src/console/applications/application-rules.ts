import { CatalogService } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { UserCeilings } from '@gateway/db';
import { ApplicationSettings } from './application-view';

/** Every model of an application's scope must be in the catalog. */
export function checkModels(catalog: CatalogService, models: string[]): void {
  models.forEach((id, index) => {
    if (!catalog.find(id))
      throw new GatewayError('ModelNotFound', `model "${id}" is not in the catalog`, {
        param: `scope.models[${index}]`,
      });
  });
}

/** A daily call limit or token quota above the owner's ceiling, or unlimited (0) under one, is refused. */
export function checkCeilings(
  ceilings: UserCeilings | undefined,
  settings: Partial<Pick<ApplicationSettings, 'dailyCallLimit' | 'tokenQuota'>>,
): void {
  const checks = [
    ['daily_call_limit', settings.dailyCallLimit, ceilings?.maxDailyCallLimit],
    ['token_quota', settings.tokenQuota, ceilings?.maxTokenQuota],
  ] as const;
  for (const [param, value, ceiling] of checks) {
    if (ceiling === undefined || value === undefined) continue;
    if (value === 0 || value > ceiling) {
      throw new GatewayError(
        'CeilingExceeded',
        `${param} must be from 1 to ${ceiling}, the ceiling the gateway's operator set for your account`,
        { param },
      );
    }
  }
}
