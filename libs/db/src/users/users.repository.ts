import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '../internal/duplicate-key';
import { User, UserCeilings, UserRole } from './user.schema';

export type UserRecord = User;

/** A change of ceilings: a number sets that ceiling, null lifts it, an absent one is left as it is. */
export type CeilingChanges = { [name in keyof UserCeilings]?: UserCeilings[name] | null };

@Injectable()
export class UsersRepository {
  constructor(@InjectModel(User.name) private readonly model: Model<User>) {}

  /** Creates the account; null when the email is taken (the unique index decides, not a racy look-up). */
  async create(user: Omit<User, 'createdAt' | 'role' | 'disabled'> & { role?: UserRole }): Promise<UserRecord | null> {
    try {
      return (await this.model.create({ ...user, createdAt: new Date() })).toObject();
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.model.findOne({ email }).lean<UserRecord>().exec();
  }

  findById(userId: string): Promise<UserRecord | null> {
    return this.model.findById(userId).lean<UserRecord>().exec();
  }

  /** The operators' accounts (a handful), disabled ones included. */
  listOperators(): Promise<UserRecord[]> {
    return this.model.find({ role: 'admin' }).lean<UserRecord[]>().exec();
  }

  /** Whether an operator who can sign in exists. */
  async hasActiveOperator(): Promise<boolean> {
    return (await this.listOperators()).some((user) => !user.disabled);
  }

  /** Every account, oldest first: for operators; a deployment has hundreds, not millions. */
  list(): Promise<UserRecord[]> {
    return this.model.find({}).sort({ createdAt: 1 }).lean<UserRecord[]>().exec();
  }

  /**
   * Changes what an operator may change; disabling also ends the account's sessions. Ceilings merge into the
   * account's, one field each (see CeilingChanges), so setting one keeps the others. Null when there is no such
   * account.
   */
  update(
    userId: string,
    changes: { disabled?: boolean; role?: UserRole; ceilings?: CeilingChanges },
  ): Promise<UserRecord | null> {
    const { ceilings, ...account } = changes;
    const set: Record<string, unknown> = Object.fromEntries(
      Object.entries(account).filter(([, value]) => value !== undefined),
    );
    const unset: Record<string, ''> = {};
    for (const [name, value] of Object.entries(ceilings ?? {})) {
      if (value === null) unset[`ceilings.${name}`] = '';
      else if (value !== undefined) set[`ceilings.${name}`] = value;
    }
    if (changes.disabled) set.sessionsEndedAt = new Date();
    const update = {
      ...(Object.keys(set).length ? { $set: set } : {}),
      ...(Object.keys(unset).length ? { $unset: unset } : {}),
    };
    if (Object.keys(update).length === 0) return this.findById(userId);
    return this.model.findByIdAndUpdate(userId, update, { new: true }).lean<UserRecord>().exec();
  }
}
