import { AppConfig, newId, randomBase62 } from '@gateway/common';
import { ApiKeysRepository, ApplicationRecord, ApplicationsRepository, NewApplication } from '@gateway/db';
import { CallbackUrls } from '@gateway/outbound';
import { Injectable } from '@nestjs/common';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key';
import { ApiKeyChecksumKeys } from './api-key-checksum-keys';
import { SecretBox } from './secret-box';

export interface IssuedCredentials {
  appId: string;
  apiKey: string;
  secretKey: string;
}

export type ApplicationInput = Omit<NewApplication, '_id' | 'secretKeyEnc'>;

/** Creates applications and issues their credentials; plaintext keys leave this service once, never stored. */
@Injectable()
export class CredentialsService {
  private readonly box: SecretBox;

  constructor(
    config: AppConfig,
    private readonly applications: ApplicationsRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly callbackUrls: CallbackUrls,
    private readonly checksumKeys: ApiKeyChecksumKeys,
  ) {
    this.box = new SecretBox(config.masterKeys);
  }

  async createApplication(input: ApplicationInput): Promise<{ application: ApplicationRecord } & IssuedCredentials> {
    await this.callbackUrls.check(input.callbackUrl);
    const secretKey = `ss-${randomBase62(43)}`;
    const application = await this.applications.create({
      ...input,
      _id: newId('app'),
      secretKeyEnc: this.box.seal(secretKey),
    });
    const apiKey = await this.issueApiKey(application._id);
    return { application, appId: application._id, apiKey, secretKey };
  }

  /** A new key for the application; the old ones stop at once, or after `graceMs`. */
  async rotateApiKey(appId: string, graceMs = 0): Promise<string> {
    await this.apiKeys.retireAll(appId, graceMs > 0 ? new Date(Date.now() + graceMs) : undefined);
    return this.issueApiKey(appId);
  }

  /** A new Secret Key for the application, shown once; signatures made with the old one stop verifying. */
  async resetSecretKey(appId: string, ownerId: string): Promise<string | null> {
    const secretKey = `ss-${randomBase62(43)}`;
    const updated = await this.applications.updateOwned(appId, ownerId, { secretKeyEnc: this.box.seal(secretKey) });
    return updated ? secretKey : null;
  }

  private async issueApiKey(appId: string): Promise<string> {
    const apiKey = generateApiKey(await this.checksumKeys.issuing());
    await this.apiKeys.create({ _id: newId('key'), appId, hash: hashApiKey(apiKey), prefix: displayPrefix(apiKey) });
    return apiKey;
  }
}
