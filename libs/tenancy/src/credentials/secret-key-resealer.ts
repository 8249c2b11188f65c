import { SealedValueError, SecretBox } from '@gateway/common';
import { ApplicationsRepository, DeploymentSecretsRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';

export interface ResealReport {
  /** The id of the newest master key, which every moved Secret Key is now sealed with. */
  keyId: string;
  moved: number;
  alreadyCurrent: number;
  /** Reset (so sealed again) between the read and the write; the reset's value stands. */
  changedMeanwhile: number;
  /** Applications whose Secret Key no listed master key opens, with why. */
  unreadable: { appId: string; reason: string }[];
  /** The deployment's own secrets (deployment_secrets: the API-key checksum keys), moved the same way. */
  deploymentSecrets: { moved: number; alreadyCurrent: number; unreadable: { id: string; reason: string }[] };
}

/** Updates sent together: 100k applications moved in 75 s on the embedded database (bench/reencrypt.ts). */
const BATCH = 100;

/** Moves every stored Secret Key to the newest master key (`gw secrets:reencrypt`); running it again moves none. */
@Injectable()
export class SecretKeyResealer {
  constructor(
    private readonly box: SecretBox,
    private readonly applications: ApplicationsRepository,
    private readonly deploymentSecrets: DeploymentSecretsRepository,
  ) {}

  async reseal(): Promise<ResealReport> {
    const report: ResealReport = {
      keyId: this.box.currentKeyId,
      moved: 0,
      alreadyCurrent: 0,
      changedMeanwhile: 0,
      unreadable: [],
      deploymentSecrets: await this.resealDeploymentSecrets(),
    };
    // One read, then writes in batches: a cursor over the embedded database stalled past its first batch.
    // Ids and sealed values only, ~20 MB at 100k applications.
    const stored = await this.applications.listSealedSecretKeys();
    let batch: { appId: string; from: string; to: string }[] = [];
    const flush = async () => {
      const replaced = await this.applications.replaceSealedSecretKeys(batch);
      report.moved += replaced;
      report.changedMeanwhile += batch.length - replaced;
      batch = [];
    };
    for (const { _id: appId, secretKeyEnc } of stored) {
      try {
        // Opened even when current, so a value no key opens is reported whatever key id it names.
        const secretKey = this.box.open(secretKeyEnc);
        if (this.box.isCurrent(secretKeyEnc)) report.alreadyCurrent += 1;
        else batch.push({ appId, from: secretKeyEnc, to: this.box.seal(secretKey) });
      } catch (error) {
        if (!(error instanceof SealedValueError)) throw error;
        report.unreadable.push({ appId, reason: error.message });
      }
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    return report;
  }

  private async resealDeploymentSecrets(): Promise<ResealReport['deploymentSecrets']> {
    const report: ResealReport['deploymentSecrets'] = { moved: 0, alreadyCurrent: 0, unreadable: [] };
    for (const { _id: id, sealed } of await this.deploymentSecrets.list()) {
      try {
        const resealed = sealed.map((value) => this.box.seal(this.box.open(value)));
        if (sealed.every((value) => this.box.isCurrent(value))) report.alreadyCurrent += 1;
        else if (await this.deploymentSecrets.replace(id, sealed, resealed)) report.moved += 1;
      } catch (error) {
        if (!(error instanceof SealedValueError)) throw error;
        report.unreadable.push({ id, reason: error.message });
      }
    }
    return report;
  }
}
