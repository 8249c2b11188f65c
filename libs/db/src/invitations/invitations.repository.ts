import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { Invitation } from './invitation.schema';

@Injectable()
export class InvitationsRepository {
  constructor(@InjectModel(Invitation.name) private readonly model: Model<Invitation>) {}

  async create(invitation: Omit<Invitation, 'createdAt'>): Promise<Invitation> {
    return (await this.model.create({ ...invitation, createdAt: new Date() })).toObject();
  }

  findByHash(hash: string): Promise<Invitation | null> {
    return this.model.findById(hash).lean<Invitation>().exec();
  }

  /** Every unused invitation, newest first: an operator issues a handful, and used ones are deleted. */
  list(): Promise<Invitation[]> {
    return this.model.find({}).sort({ createdAt: -1 }).lean<Invitation[]>().exec();
  }

  /** Uses the invitation up; false when another sign-up used it first (one delete wins). */
  async consume(hash: string): Promise<boolean> {
    const { deletedCount } = await this.model.deleteOne({ _id: hash }).exec();
    return deletedCount === 1;
  }

  /** Deletes every unused operator setup link, so only the newest one works. */
  async revokeOperatorSetups(): Promise<void> {
    await this.model.deleteMany({ role: 'admin' }).exec();
  }
}
