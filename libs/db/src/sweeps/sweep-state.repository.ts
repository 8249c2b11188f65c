import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { SweepState } from './sweep-state.schema';

@Injectable()
export class SweepStateRepository {
  constructor(@InjectModel(SweepState.name) private readonly model: Model<SweepState>) {}

  async through(sweep: string): Promise<string | null> {
    const state = await this.model.findById(sweep).lean<SweepState>().exec();
    return state?.through ?? null;
  }

  async advance(sweep: string, through: string): Promise<void> {
    await this.model.updateOne({ _id: sweep }, { $set: { through, updatedAt: new Date() } }, { upsert: true }).exec();
  }
}
