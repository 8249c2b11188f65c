import { AppConfig, LOGGER, SecretBox } from '@gateway/common';
import { DeploymentSecretsRepository } from '@gateway/db';
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Logger } from 'pino';
import { apiKeyChecksumKeys } from './api-key';

/** The deployment secret that holds the checksum keys (deployment_secrets). */
export const CHECKSUM_KEYS_SECRET = 'api-key-checksum-keys';
const RETRY_MS = 5_000;

/**
 * The keys API-key checksums are made and verified under, kept in MongoDB sealed with the master key, so they outlive
 * a master-key rotation: `gw secrets:reencrypt` re-seals them with the Secret Keys, and an API key keeps working after
 * the master key it was issued under is removed. The first process to start stores the keys derived from every master
 * key it lists, which is what keys issued before were checksummed with.
 */
@Injectable()
export class ApiKeyChecksumKeys implements OnModuleInit, OnModuleDestroy {
  /** Until the stored keys are read: those derived from the listed master keys, as before they were stored. */
  private keys: Buffer[];
  private loading?: Promise<void>;
  private retry?: NodeJS.Timeout;

  constructor(
    config: AppConfig,
    private readonly box: SecretBox,
    private readonly secrets: DeploymentSecretsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.keys = apiKeyChecksumKeys(config);
  }

  /** Read at start; with MongoDB unreachable the process starts on the derived keys and reads them once it can. */
  async onModuleInit(): Promise<void> {
    await this.load().catch((error: Error) => {
      this.logger.warn({ err: error.message }, 'API-key checksum keys not read yet; retrying');
      this.retry = setInterval(
        () =>
          void this.load().then(
            () => clearInterval(this.retry),
            () => undefined,
          ),
        RETRY_MS,
      );
      this.retry.unref();
    });
  }

  onModuleDestroy(): void {
    clearInterval(this.retry);
  }

  /** Every key a checksum may verify under: the stored ones, and those of the listed master keys. */
  get verifying(): readonly Buffer[] {
    return this.keys;
  }

  /** The key new API keys' checksums are made under: the first stored one. */
  async issuing(): Promise<Buffer> {
    await this.load();
    return this.keys[0];
  }

  private load(): Promise<void> {
    this.loading ??= this.read().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  private async read(): Promise<void> {
    const derived = this.keys;
    const sealed = await this.secrets.findOrCreate(
      CHECKSUM_KEYS_SECRET,
      derived.map((key) => this.box.seal(key.toString('hex'))),
    );
    const stored = sealed.map((value) => Buffer.from(this.box.open(value), 'hex'));
    this.keys = [...stored, ...derived.filter((key) => !stored.some((other) => other.equals(key)))];
  }
}
