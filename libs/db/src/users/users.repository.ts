import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { User } from './user.schema';

export type UserRecord = User;

@Injectable()
export class UsersRepository {
  constructor(@InjectModel(User.name) private readonly model: Model<User>) {}

  /** Creates the account; null when the email is taken (the unique index decides, not a racy look-up). */
  async create(user: Omit<User, 'createdAt'>): Promise<UserRecord | null> {
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
}
