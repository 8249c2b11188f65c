import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { newId } from '@gateway/common';
import { isDuplicateKey, SweepStateRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { Connection, mongo } from 'mongoose';

/** What every stored file says about itself; the maintenance sweep deletes it once `expiresAt` has passed. */
export interface StoredFileMetadata {
  appId: string;
  expiresAt: Date;
  taskId?: string;
  index?: number;
  /** For a generated image: the provider that made it. */
  provider?: string;
  /** For a generated image: what it is billed, so a rerun that finds it stored bills the same. */
  unitPriceNanos?: number;
  contentType: string;
}

export interface StoredImage {
  length: number;
  metadata: StoredFileMetadata;
  stream: Readable;
}

/** GridFS chunks of 1 MB: a 10 MB input is 10 chunk documents instead of 40 at the 255 KB default. */
const CHUNK_BYTES = 1024 * 1024;

/** A sweep of expired files stops after this many in one pass and carries on at the next. */
const SWEEP_BATCH = 500;

/**
 * Image bytes in GridFS (docs/contracts.md, collections): bucket `images` holds generated images behind signed URLs, bucket `inputs`
 * holds request images too large to travel inside a job. Neither is ever read by an id the caller chose.
 * A file's `filename` is the UTC hour it expires in (`expires|YYYY-MM-DDTHH`): the driver indexes filename, so the
 * sweep finds an hour's files by equality, which the embedded database serves by index where it would scan for a
 * range on `metadata.expiresAt`.
 */
@Injectable()
export class ImageStore {
  private buckets?: { images: mongo.GridFSBucket; inputs: mongo.GridFSBucket };

  constructor(
    @InjectConnection() private readonly connection: Connection,
    private readonly sweeps: SweepStateRepository,
  ) {}

  /** The connection's `db` exists only once it has connected, so the buckets are made on first use. */
  private get images(): mongo.GridFSBucket {
    return this.bucketsOf().images;
  }

  private get inputs(): mongo.GridFSBucket {
    return this.bucketsOf().inputs;
  }

  private bucketsOf() {
    if (!this.buckets) {
      const { db } = this.connection;
      if (!db) throw new Error('ImageStore was used before the database connection opened');
      this.buckets = {
        images: new mongo.GridFSBucket(db, { bucketName: 'images', chunkSizeBytes: CHUNK_BYTES }),
        inputs: new mongo.GridFSBucket(db, { bucketName: 'inputs', chunkSizeBytes: CHUNK_BYTES }),
      };
    }
    return this.buckets;
  }

  /** Keeps a request image for the worker; returns its id. */
  async saveInput(
    bytes: Buffer,
    metadata: Omit<StoredFileMetadata, 'contentType'> & { contentType?: string },
  ): Promise<string> {
    const id = newId('in');
    await upload(this.inputs, id, bytes, { contentType: 'application/octet-stream', ...metadata });
    return id;
  }

  async readInput(id: string): Promise<Buffer | null> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of this.inputs.openDownloadStream(fileId(id))) chunks.push(chunk as Buffer);
    } catch (error) {
      if (isFileNotFound(error)) return null;
      throw error;
    }
    return Buffer.concat(chunks);
  }

  async deleteInputs(ids: string[]): Promise<void> {
    await Promise.all(ids.map((id) => deleteFile(this.inputs, fileId(id))));
  }

  /**
   * Stores one generated image under a deterministic id. A rerun of the same task meets its earlier attempt's
   * file (a duplicate key) and replaces it; a first run pays no extra delete.
   */
  async saveImage(id: string, png: Buffer, metadata: Omit<StoredFileMetadata, 'contentType'>): Promise<void> {
    const file = { ...metadata, contentType: 'image/png' };
    try {
      await upload(this.images, id, png, file);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await deleteFile(this.images, fileId(id));
      await upload(this.images, id, png, file);
    }
  }

  /**
   * The metadata of a stored image, or null. GridFS writes a file's document after its last chunk, so a file found
   * here is complete.
   */
  async imageMetadata(id: string): Promise<StoredFileMetadata | null> {
    const [file] = await this.images.find({ _id: fileId(id) }, { limit: 1, projection: { metadata: 1 } }).toArray();
    return file ? (file.metadata as StoredFileMetadata) : null;
  }

  async openImage(id: string): Promise<StoredImage | null> {
    const [file] = await this.images.find({ _id: fileId(id) }, { limit: 1 }).toArray();
    if (!file) return null;
    return {
      length: file.length,
      metadata: file.metadata as StoredFileMetadata,
      stream: this.images.openDownloadStream(fileId(id)),
    };
  }

  /**
   * Deletes images and inputs whose lifetime has passed; returns how many of each. `horizonMs` is the longest
   * lifetime a file may have had: the first sweep of a database looks back that far.
   */
  async deleteExpired(horizonMs: number, now = new Date()): Promise<{ images: number; inputs: number }> {
    const images = await this.sweep('files:images', this.images, horizonMs, now);
    const inputs = await this.sweep('files:inputs', this.inputs, horizonMs, now);
    return { images, inputs };
  }

  /** Hour by hour from where the last pass stopped up to now; an hour is done once it is past and emptied. */
  private async sweep(name: string, bucket: mongo.GridFSBucket, horizonMs: number, now: Date): Promise<number> {
    const current = expiryHour(now);
    let hour = (await this.sweeps.through(name)) ?? expiryHour(new Date(now.getTime() - horizonMs - 3_600_000));
    let deleted = 0;
    while (hour < current && deleted < SWEEP_BATCH) {
      hour = expiryHour(new Date(Date.parse(`${hour}:00:00Z`) + 3_600_000));
      const files = await bucket
        .find({ filename: `expires|${hour}` }, { projection: { _id: 1, metadata: 1 } })
        .toArray();
      const expired = files.filter((file) => expiresAtOf(file) <= now.getTime()).slice(0, SWEEP_BATCH - deleted);
      for (const file of expired) await deleteFile(bucket, file._id);
      deleted += expired.length;
      if (hour < current && expired.length === files.length) await this.sweeps.advance(name, hour);
      else break;
    }
    return deleted;
  }
}

/**
 * A file id as the driver's GridFS types spell it. They say ObjectId, but every file here is stored under a string
 * id (`in_…`, or a task's image id), which the driver passes through as it is.
 */
function fileId(id: string): mongo.ObjectId {
  return id as unknown as mongo.ObjectId;
}

/** The UTC hour a file expires in, YYYY-MM-DDTHH: the bucket its filename names. */
function expiryHour(at: Date): string {
  return at.toISOString().slice(0, 13);
}

async function upload(
  bucket: mongo.GridFSBucket,
  id: string,
  bytes: Buffer,
  metadata: StoredFileMetadata,
): Promise<void> {
  await pipeline(
    Readable.from([bytes]),
    bucket.openUploadStreamWithId(fileId(id), `expires|${expiryHour(metadata.expiresAt)}`, { metadata }),
  );
}

/** Deleting a file that is gone already (an earlier attempt or sweep took it) counts as done. */
async function deleteFile(bucket: mongo.GridFSBucket, id: mongo.ObjectId): Promise<void> {
  try {
    await bucket.delete(id);
  } catch (error) {
    if (!isFileNotFound(error)) throw error;
  }
}

/** Milliseconds since the epoch; NaN (never expired) when the metadata holds no date. */
function expiresAtOf(file: mongo.GridFSFile): number {
  const expiresAt: unknown = file.metadata?.expiresAt;
  return expiresAt instanceof Date || typeof expiresAt === 'string' || typeof expiresAt === 'number'
    ? new Date(expiresAt).getTime()
    : NaN;
}

function isFileNotFound(error: unknown): boolean {
  return error instanceof Error && /FileNotFound|File not found/i.test(`${error.name} ${error.message}`);
}
