import { GatewayError } from '@gateway/common';
import type { Principal } from '../auth/principal';

/** 403 ScopeDenied unless the application may use this capability and model (empty lists allow all). */
export function assertInScope(principal: Principal, capability: string, modelIds: string[]): void {
  const { capabilities, models } = principal.scope;
  if (capabilities.length > 0 && !capabilities.includes(capability)) {
    throw new GatewayError(
      'ScopeDenied',
      `this application may not use ${capability}; its scope allows ${capabilities.join(', ')}`,
    );
  }
  if (models.length > 0 && !modelIds.some((id) => models.includes(id))) {
    throw new GatewayError('ScopeDenied', `this application may not use model ${modelIds[0]}`, { param: 'model' });
  }
}
