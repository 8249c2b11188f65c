import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// scripts/services.js is the same helper `npm test` uses to start the shared servers.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services.js');

/**
 * A FerretDB of one suite's own in front of the shared PostgreSQL, so that stopping it (an outage) leaves the other
 * suites' database up. `uri(db)` is a MONGODB_URI on it; stop and start it again at will, on the same port and data.
 */
export class OwnDatabase {
  private ferret?: ChildProcess;

  private constructor(
    private readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(name: string): Promise<OwnDatabase> {
    if (!process.env.TEST_POSTGRES_URL) throw new Error('run the e2e suite with `npm test`, which starts PostgreSQL');
    const database = new OwnDatabase(await services.freePort(), mkdtempSync(join(tmpdir(), `gw-${name}-`)));
    await database.restart();
    return database;
  }

  uri(db: string): string {
    return `mongodb://127.0.0.1:${this.port}/${db}`;
  }

  async restart(): Promise<void> {
    this.ferret = await services.startFerretDb({
      port: this.port,
      postgresUrl: process.env.TEST_POSTGRES_URL,
      stateDir: join(this.dir, 'db'),
    });
  }

  /** An outage: the server killed at once, as a crash or a lost host would. */
  async kill(): Promise<void> {
    await services.stop(this.ferret, 'SIGKILL');
  }

  async close(): Promise<void> {
    await services.stop(this.ferret, 'SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
