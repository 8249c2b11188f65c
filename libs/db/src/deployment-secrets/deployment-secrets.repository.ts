import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '../internal/duplicate-key';
import { DeploymentSecret } from './deployment-secret.schema';

@Injectable()
export class DeploymentSecretsRepository {
  constructor(@InjectModel(DeploymentSecret.name) private readonly model: Model<DeploymentSecret>) {}

  /** The secret's sealed values: `sealed` stored if it has none yet, else what another process stored first. */
  async findOrCreate(id: string, sealed: string[]): Promise<string[]> {
    try {
      await this.model.create({ _id: id, sealed, updatedAt: new Date() });
      return sealed;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const stored = await this.model.findById(id).lean<DeploymentSecret>().exec();
    if (!stored) throw new Error(`deployment secret ${id} vanished while it was read`);
    return stored.sealed;
  }

  async list(): Promise<DeploymentSecret[]> {
    return this.model.find().lean<DeploymentSecret[]>().exec();
  }

  /** Replaces the sealed values if they are still `from`; false when they changed meanwhile. */
  async replace(id: string, from: string[], to: string[]): Promise<boolean> {
    const result = await this.model
      .updateOne({ _id: id, sealed: from }, { $set: { sealed: to, updatedAt: new Date() } })
      .exec();
    return result.modifiedCount === 1;
  }
}
