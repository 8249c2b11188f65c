import { GatewayError, utcDay } from '@gateway/common';
import { ApplicationRecord, FeedQuery, FeedSlice, InvalidCursorError } from '@gateway/db';

/** Nothing of an application predates it: a listing need not look at the days before its creation. */
export function fromCreation(app: ApplicationRecord, query: FeedQuery): FeedQuery {
  const created = utcDay(app.createdAt);
  return created > query.from ? { ...query, from: created > query.to ? query.to : created } : query;
}

/** A feed's page; a cursor the feed does not recognise is the caller's 400 on `cursor`. */
export async function listing<T>(list: () => Promise<FeedSlice<T>>): Promise<FeedSlice<T>> {
  try {
    return await list();
  } catch (error) {
    if (error instanceof InvalidCursorError)
      throw new GatewayError('InvalidParameter', error.message, { param: 'cursor' });
    throw error;
  }
}

/** One application's page of a feed, each record in the console API's names. */
export function applicationPage<T>(appId: string, slice: FeedSlice<T>, view: (record: T) => Record<string, unknown>) {
  return { app_id: appId, data: slice.data.map(view), next: slice.next };
}
