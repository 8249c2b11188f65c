import type { MongoBulkWriteError } from 'mongodb';
import type { Model } from 'mongoose';
import { isDuplicateKey } from './duplicate-key';

/** The one driver call the inserter makes: documents go in as they are, `_id` included. */
export interface InsertTarget<T> {
  insertMany(docs: T[], options: { ordered: false }): Promise<unknown>;
}

/**
 * A model's driver collection as the insert target of its own documents. Mongoose types `Model.collection` for any
 * document, whose `_id` would be an ObjectId, whatever the schema says; the driver inserts the string ids as they are.
 */
export function insertTargetOf<T>(model: Model<T>): InsertTarget<T> {
  return model.collection as unknown as InsertTarget<T>;
}

interface Pending<T> {
  doc: T;
  /** true when this insert wrote the document, false when one with its _id was there already. */
  resolve(inserted: boolean): void;
  reject(error: unknown): void;
}

/**
 * Inserts documents with group commit: the inserts of one turn of the event loop go together, and an insert
 * arriving while another batch is in flight joins the next one, so an idle process writes at once and a busy one
 * writes in few round trips. A duplicate _id counts as written: it means an earlier attempt of the same job already
 * recorded it.
 */
export class GroupCommitInserter<T> {
  private queue: Pending<T>[] = [];
  private flushing = false;

  constructor(
    private readonly collection: () => InsertTarget<T>,
    private readonly maxBatch = 500,
  ) {}

  insert(doc: T): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ doc, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      queueMicrotask(() => void this.flush());
    });
  }

  /** Inserts documents in one batch (with any others of this turn); tells for each whether it was new. */
  insertMany(docs: T[]): Promise<boolean[]> {
    return Promise.all(docs.map((doc) => this.insert(doc)));
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.collection().insertMany(
          batch.map((p) => p.doc),
          { ordered: false },
        );
        batch.forEach((p) => p.resolve(true));
      } catch (error) {
        settleBulkError(batch, error);
      }
    }
    this.flushing = false;
  }
}

function settleBulkError<T>(batch: Pending<T>[], error: unknown): void {
  const writeErrors = [(error as MongoBulkWriteError).writeErrors ?? []].flat();
  // No per-document errors: the batch as a whole failed (a connection lost mid-write), so none counts as inserted.
  if (writeErrors.length === 0) {
    batch.forEach((p) => p.reject(error));
    return;
  }
  const failed = new Map<number, { code?: number; errmsg?: string }>();
  for (const e of writeErrors) failed.set(e.index, e);
  batch.forEach((p, index) => {
    const writeError = failed.get(index);
    if (!writeError || isDuplicateKey(writeError)) p.resolve(!writeError);
    else p.reject(new Error(writeError.errmsg ?? 'insert failed'));
  });
}
