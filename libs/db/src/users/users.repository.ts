import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { User, UserCeilings, UserRole } from './user.schema';

export type UserRecord = User;

@Injectable()
export class UsersRepository {
  constructor(@InjectModel(User.name) private readonly model: Model<User>) {}

  /** Creates the account; null when the email is taken (the unique index decides, not a racy look-up). */
  async create(user: Omit<User, 'createdAt' | 'role' | 'disabled'> & { role?: UserRole }): Promise<UserRecord | null> {
    try {
      return (await this.model.create({ ...user, createdAt: new Date() })).toObject();
    } catch (error) {
      if ((error as { code?: number }).code === 11000) return null;
      throw error;
    }
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.model.findOne({ email }).lean<UserRecord>().exec();
  }

  findById(userId: string): Promise<UserRecord | null> {
    return this.model.findById(userId).lean<UserRecord>().exec();
  }

  /** Whether any account exists: one document read, whatever the number of users. */
  async any(): Promise<boolean> {
    return (await this.model.findOne({}, { _id: 1 }).lean().exec()) !== null;
  }

  /** Every account, oldest first: for operators; a deployment has hundreds, not millions. */
  list(): Promise<UserRecord[]> {
    return this.model.find({}).sort({ createdAt: 1 }).lean<UserRecord[]>().exec();
  }

  /** Changes what an operator may change; disabling also ends the account's sessions. Null when there is no such account. */
  update(
    userId: string,
    changes: { disabled?: boolean; role?: UserRole; ceilings?: UserCeilings },
  ): Promise<UserRecord | null> {
    const set: Record<string, unknown> = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    );
    if (changes.disabled) set.sessionsEndedAt = new Date();
    return this.model.findByIdAndUpdate(userId, { $set: set }, { new: true }).lean<UserRecord>().exec();
  }
}
