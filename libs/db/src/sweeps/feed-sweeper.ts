import { utcDay, utcDaysBefore } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { ApplicationsRepository } from '../applications/applications.repository';
import { FeedName, FeedPages } from '../feeds/feed-pages';
import { SweepStateRepository } from './sweep-state.repository';

export interface FeedSweep {
  /** Names the sweep's progress in `sweep_state`. */
  name: string;
  feed: FeedName;
  /** Records of days wholly before this instant's UTC day go. */
  cutoff: Date;
  /** Deletes what is filed under one feed page; returns how many. */
  deletePage(page: string): Promise<number>;
  /** The sweep stops at the next day boundary after this instant and carries on at the next pass. */
  deadline: number;
  /** Stops the sweep at the next day boundary too (the worker is shutting down). */
  stop?: AbortSignal;
}

/**
 * Retention by feed pages: for each day past the cutoff and each application, deletes the day's pages one at a
 * time (at most 100 records a statement), so a pass never holds the database for long and costs the same however
 * much is stored. Progress is kept per day, so a pass cut short resumes where it stopped.
 */
@Injectable()
export class FeedSweeper {
  constructor(
    private readonly feeds: FeedPages,
    private readonly state: SweepStateRepository,
    private readonly applications: ApplicationsRepository,
  ) {}

  async sweep(sweep: FeedSweep): Promise<{ deleted: number; through: string | null }> {
    const apps = await this.applications.listCreated();
    if (apps.length === 0) return { deleted: 0, through: null };
    const oldest = utcDaysBefore(utcDay(Math.min(...apps.map((app) => new Date(app.createdAt).getTime()))), 1);
    let through = (await this.state.through(sweep.name)) ?? oldest;
    const lastDay = utcDaysBefore(utcDay(sweep.cutoff), 1);
    let deleted = 0;
    while (through < lastDay && Date.now() < sweep.deadline && !sweep.stop?.aborted) {
      const day = utcDaysBefore(through, -1);
      for (const app of apps) {
        deleted += await this.feeds.sweepDay(sweep.feed, app._id, day, (page) => sweep.deletePage(page));
      }
      await this.state.advance(sweep.name, day);
      through = day;
    }
    return { deleted, through };
  }
}
