import { newId, randomBase62, SecretBox } from '@gateway/common';
import {
  ApiKeyRecord,
  ApiKeysRepository,
  ApplicationRecord,
  ApplicationsRepository,
  NewApplication,
} from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { DEFAULT_KEY_NAME, displayPrefix, generateApiKey, hashApiKey } from './api-key';
import { ApiKeyChecksumKeys } from './api-key-checksum-keys';

export interface IssuedCredentials {
  appId: string;
  apiKey: string;
  secretKey: string;
}

export type ApplicationInput = Omit<NewApplication, '_id' | 'secretKeyEnc'>;

/** Creates applications and issues their credentials; plaintext keys leave this service once, never stored. */
@Injectable()
export class CredentialsService {
  constructor(
    private readonly box: SecretBox,
    private readonly applications: ApplicationsRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly checksumKeys: ApiKeyChecksumKeys,
  ) {}

  /** Its callback URL is the caller's to check first (CallbackUrls): a rule of the use case, not of credentials. */
  async createApplication(input: ApplicationInput): Promise<{ application: ApplicationRecord } & IssuedCredentials> {
    const secretKey = `ss-${randomBase62(43)}`;
    const application = await this.applications.create({
      ...input,
      _id: newId('app'),
      secretKeyEnc: this.box.seal(secretKey),
    });
    const apiKey = await this.issueApiKey(application._id);
    return { application, appId: application._id, apiKey, secretKey };
  }

  /**
   * A new key replacing the application's live keys (one new key named "default"), or only `key` (the new key takes
   * its name and expiry): those replaced stop at once, or after `graceMs` (never later than their own expiry).
   */
  async rotateApiKey(appId: string, graceMs = 0, key?: ApiKeyRecord): Promise<string> {
    await this.apiKeys.retire(appId, graceMs > 0 ? new Date(Date.now() + graceMs) : undefined, key?._id);
    return this.issueApiKey(appId, key?.name, key?.expiresAt);
  }

  /** Another key for the application beside its others, shown once. */
  issueNamedApiKey(appId: string, name: string, expiresAt?: Date): Promise<{ id: string; apiKey: string }> {
    return this.issue(appId, name, expiresAt);
  }

  /** A new Secret Key for the application, shown once; signatures made with the old one stop verifying. */
  async resetSecretKey(appId: string, ownerId: string): Promise<string | null> {
    const secretKey = `ss-${randomBase62(43)}`;
    const updated = await this.applications.updateOwned(appId, ownerId, { secretKeyEnc: this.box.seal(secretKey) });
    return updated ? secretKey : null;
  }

  private async issueApiKey(appId: string, name = DEFAULT_KEY_NAME, expiresAt?: Date): Promise<string> {
    return (await this.issue(appId, name, expiresAt)).apiKey;
  }

  private async issue(appId: string, name: string, expiresAt?: Date): Promise<{ id: string; apiKey: string }> {
    const apiKey = generateApiKey(await this.checksumKeys.issuing());
    const id = newId('key');
    await this.apiKeys.create({
      _id: id,
      appId,
      hash: hashApiKey(apiKey),
      prefix: displayPrefix(apiKey),
      name,
      expiresAt,
    });
    return { id, apiKey };
  }
}
