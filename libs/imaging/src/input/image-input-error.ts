import { GatewayError } from '@gateway/common';

/**
 * An image the gateway cannot accept. The message is written for the client; the api adds the offending
 * `param` when it reports it, the worker treats it as unrecoverable (a retry cannot fix the input).
 */
export class ImageInputError extends GatewayError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('InvalidImage', message, options);
    this.name = 'ImageInputError';
  }
}
