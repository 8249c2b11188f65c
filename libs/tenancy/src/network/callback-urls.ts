import { AppConfig, GatewayError } from '@gateway/common';
import { OutboundPolicy, outboundPolicy, UnsafeUrlError } from '@gateway/imaging';
import { assertCallbackUrl } from '@gateway/webhooks';
import { Injectable } from '@nestjs/common';

/**
 * The save-time SSRF check of callback URLs (docs/contracts.md, webhooks): loopback, private and metadata destinations are
 * refused unless the operator allowed them (OUTBOUND_ALLOW_CIDRS, or OUTBOUND_ALLOW_PRIVATE in development).
 */
@Injectable()
export class CallbackUrls {
  private readonly policy: OutboundPolicy;

  constructor(config: AppConfig) {
    this.policy = outboundPolicy(config);
  }

  /** An empty URL removes the callback and needs no check. */
  async check(url: string | undefined, param = 'callback_url'): Promise<void> {
    if (!url) return;
    try {
      await assertCallbackUrl(url, this.policy);
    } catch (error) {
      if (error instanceof UnsafeUrlError) throw new GatewayError('InvalidParameter', `${param} is refused: ${error.message}`, { param });
      throw error;
    }
  }
}
