/**
 * Soak: a steady mixed load for a long run, then the books. Sends --requests calls open-loop at --rate per second
 * (each on its schedule, whether or not the earlier ones have been answered), in a cycle of 100: 49 embeddings and
 * 25 chat completions answered synchronously, 25 async submits (`X-Async: enable`, embeddings and chat in turn) read
 * back with GET /v1/tasks/{id} until final, and 1 image edit with n=2 on the worker's local engine.
 *
 * Counts every answer by status, and as hung every call (or async task) without a final answer SYNC_TIMEOUT_MS + 5 s
 * after it was sent. Samples the api's, the worker's and Redis's resident memory at every tenth of the calls sent,
 * with a progress line, and every second for each tenth's floor. Afterwards it checks the database: every task the
 * gateway accepted (200 or 202, its id from X-Task-Id or the 202's body) has its record in `tasks` (waiting up to
 * 60 s for the worker's batched writes), and the image edits answered 200 have as many `billing_records` as images
 * delivered. Prints the figures beside the targets; asserts nothing.
 *
 * Run it with `npm run bench:soak [-- --requests 100000 --rate 150]`.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Collection, MongoClient } from 'mongodb';
import { Agent, request } from 'undici';
import { dataUri, editBody, noisyPng } from '../test/helpers/images';
import {
  describeTally,
  env,
  fmt,
  print,
  printMachine,
  rssMb,
  runBench,
  servicePids,
  Stats,
  stats,
  syncTimeoutMs,
  table,
  tally,
  verdict,
} from './shared';

const COMMAND = 'npm run bench:soak';
const TARGETS = { hung: 0, missing: 0, rssGrowth: 0.1 };
/** The processes whose memory is followed. */
const WATCHED = ['api', 'worker', 'redis'] as const;
/** Tenths of the run at which memory is compared: after warm-up, midway, at the end. */
const GROWTH_POINTS = { warm: 1, mid: 5, end: 10 };
const POLL_MS = 250;
/** How long the worker may take to write the last task records after the last answer. */
const RECORDS_WAIT_MS = 60_000;
/** Missing records are looked up one by one up to this many; beyond it, every id is read again. */
const BY_ID_LOOKUPS_MAX = 1000;
/** Below the usual 1024 open files; at the default rate a few connections are in use. */
const CLIENT_CONNECTIONS = 1000;
const IMAGE_MODEL = 'x-image-edit-plus';

type Kind = 'embeddings' | 'chat' | 'async' | 'image';

interface Options {
  requests: number;
  rate: number;
}

/** One call: its POST's outcome (a status, `<status> <error code>`, a network error or `hung`); async, its task's. */
interface Operation {
  kind: Kind;
  ms?: number;
  outcome?: string;
  taskId?: string;
  /** Images in a 200 image-edit answer. */
  images?: number;
  /** Async: the task's last status (`hung` when it was not final in time) and the time from send to reading it. */
  final?: string;
  finalMs?: number;
  /** Async: polls answered other than 200, by outcome. */
  pollErrors?: string[];
}

/** Resident memory (MB) of the watched processes at one point of the run. */
type Memory = Record<(typeof WATCHED)[number], number>;

function options(): Options {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '100000' },
      rate: { type: 'string', default: '150' },
    },
    strict: true,
    allowPositionals: false,
  });
  const requests = Number(values.requests);
  const rate = Number(values.rate);
  if (!Number.isInteger(requests) || requests < 10) throw new Error('--requests must be a whole number ≥ 10');
  if (!(rate > 0)) throw new Error('--rate must be a positive number of calls per second');
  return { requests, rate };
}

/** The cycle of 100: 1 image edit, then 49 embeddings, 25 chat and 25 async interleaved. */
function kindOf(index: number): Kind {
  const slot = index % 100;
  if (slot === 50) return 'image';
  return (['embeddings', 'chat', 'embeddings', 'async'] as const)[slot % 4];
}

// ---------------------------------------------------------------------------------------------------------------
// Calls

interface Client {
  apiUrl: string;
  apiKey: string;
  hungAfterMs: number;
  image: string;
  runId: string;
}

interface Answer {
  outcome: string;
  status?: number;
  taskId?: string;
  body?: { data?: unknown[]; task_id?: string; status?: string; error?: { code?: string } };
}

const agent = new Agent({
  connections: CLIENT_CONNECTIONS,
  keepAliveTimeout: 10_000,
  headersTimeout: 0,
  bodyTimeout: 0,
});

function requestOf(client: Client, kind: Kind, index: number): { path: string; body: string } {
  const text = `soak ${client.runId} ${index}`;
  const embeddings = { path: '/v1/embeddings', body: { model: 'text-embedding-v4', input: text, dimensions: 64 } };
  const chat = {
    path: '/v1/chat/completions',
    body: { model: 'x-chat', messages: [{ role: 'user', content: text }], max_tokens: 16 },
  };
  const image = {
    path: '/v1/images/edits',
    body: editBody(IMAGE_MODEL, [client.image], text, { n: 2, size: '512*512', prompt_extend: false }),
  };
  const chosen = { embeddings, chat, image, async: index % 8 === 3 ? embeddings : chat }[kind];
  return { path: chosen.path, body: JSON.stringify(chosen.body) };
}

/** One HTTP exchange, bounded by `timeoutMs`; only the bodies the bench reads are parsed. */
async function exchange(
  client: Client,
  method: 'GET' | 'POST',
  path: string,
  timeoutMs: number,
  extra: { body?: string; headers?: Record<string, string>; parse: boolean },
): Promise<Answer> {
  const timeout = AbortSignal.timeout(Math.ceil(timeoutMs));
  try {
    const response = await request(`${client.apiUrl}${path}`, {
      method,
      dispatcher: agent,
      headers: { authorization: `Bearer ${client.apiKey}`, ...extra.headers },
      body: extra.body,
      signal: timeout,
    });
    const text = await response.body.text();
    const status = response.statusCode;
    const body = extra.parse || status >= 300 ? parseJson(text) : undefined;
    const header = response.headers['x-task-id'];
    const taskId = (Array.isArray(header) ? header[0] : header) ?? body?.task_id;
    const code = status >= 300 ? body?.error?.code : undefined;
    return { outcome: code ? `${status} ${code}` : String(status), status, taskId, body };
  } catch (error) {
    if (timeout.aborted) return { outcome: 'hung' };
    const cause = (error as { cause?: { code?: string } }).cause;
    return { outcome: (error as { code?: string }).code ?? cause?.code ?? (error as Error).name };
  }
}

function parseJson(text: string): Answer['body'] {
  try {
    return JSON.parse(text) as Answer['body'];
  } catch {
    return undefined;
  }
}

async function run(client: Client, operation: Operation, index: number): Promise<void> {
  const started = performance.now();
  const { path, body } = requestOf(client, operation.kind, index);
  const async = operation.kind === 'async';
  const answer = await exchange(client, 'POST', path, client.hungAfterMs, {
    body,
    headers: { 'content-type': 'application/json', ...(async && { 'x-async': 'enable' }) },
    parse: async || operation.kind === 'image',
  });
  operation.ms = performance.now() - started;
  operation.outcome = answer.outcome;
  if (answer.status === 200 || answer.status === 202) operation.taskId = answer.taskId;
  if (operation.kind === 'image' && answer.status === 200) operation.images = answer.body?.data?.length ?? 0;
  if (async && answer.status === 202 && answer.taskId) await follow(client, operation, answer.taskId, started);
}

/** Reads an async task until it is final, or until hungAfterMs after its submit. */
async function follow(client: Client, operation: Operation, taskId: string, started: number): Promise<void> {
  const deadline = started + client.hungAfterMs;
  let final = 'hung';
  while (performance.now() < deadline) {
    await sleep(POLL_MS);
    const answer = await exchange(client, 'GET', `/v1/tasks/${taskId}`, Math.max(1, deadline - performance.now()), {
      parse: true,
    });
    if (answer.status !== 200) {
      (operation.pollErrors ??= []).push(answer.outcome);
      continue;
    }
    const status = answer.body?.status ?? 'unreadable';
    if (status === 'queued' || status === 'running') continue;
    final = status;
    break;
  }
  operation.final = final;
  operation.finalMs = performance.now() - started;
}

// ---------------------------------------------------------------------------------------------------------------
// The schedule

interface Progress {
  /** Sampled as each tenth of the calls was sent. */
  memory: Map<number, Memory>;
  /** Each process's lowest sample during each tenth: what it keeps once its heap has been collected. */
  floors: Map<number, Memory>;
  /** How late each call left against its schedule, ms. */
  lateness: number[];
  durationS: number;
}

function memoryNow(pids: Map<string, number>): Memory {
  return Object.fromEntries(WATCHED.map((name) => [name, rssMb(pids.get(name) ?? 0)])) as Memory;
}

/** Memory is also sampled this often between the tenths, for each tenth's floor. */
const MEMORY_EVERY_MS = 1000;

const lowest = (samples: Memory[]) =>
  Object.fromEntries(WATCHED.map((name) => [name, Math.min(...samples.map((m) => m[name]))])) as Memory;

const describeMemory = (m: Memory) => WATCHED.map((name) => `${name} ${fmt(m[name], 0)} MB`).join(', ');

/**
 * Sends every call at start + i / rate; at each tenth of the calls sent, samples memory and prints a line. Memory is
 * sampled every second as well: a sample taken just before a major collection lands on the heap's high tide, so the
 * growth is judged on each tenth's floor (its lowest sample), where a leak shows and a sawtooth does not.
 */
async function drive(
  opts: Options,
  client: Client,
  operations: Operation[],
  pids: Map<string, number>,
): Promise<{ progress: Progress; pending: Promise<void>[] }> {
  const interval = 1000 / opts.rate;
  const memory = new Map<number, Memory>();
  const floors = new Map<number, Memory>();
  let samples: Memory[] = [];
  const sampler = setInterval(() => samples.push(memoryNow(pids)), MEMORY_EVERY_MS);
  const lateness: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let tenth = 1;
  for (let i = 0; i < opts.requests;) {
    const due = start + i * interval;
    const now = performance.now();
    if (due > now) {
      await sleep(due - now);
      continue;
    }
    lateness.push(now - due);
    const operation: Operation = { kind: kindOf(i) };
    operations.push(operation);
    // A failure of the bench itself shows among the outcomes rather than ending the run.
    pending.push(
      run(client, operation, i).catch((error: Error) => {
        operation.outcome ??= `bench error: ${error.message}`;
      }),
    );
    i++;
    if (i >= Math.ceil((opts.requests * tenth) / 10)) {
      memory.set(tenth, memoryNow(pids));
      floors.set(tenth, lowest([...samples, memory.get(tenth)!]));
      samples = [];
      printProgress(tenth, operations, opts, (performance.now() - start) / 1000, memory.get(tenth)!);
      tenth++;
    }
  }
  clearInterval(sampler);
  return { progress: { memory, floors, lateness, durationS: (performance.now() - start) / 1000 }, pending };
}

/** Answered, and for an accepted async call, its task read final (or given up). */
const finished = (o: Operation) => o.outcome !== undefined && (o.outcome !== '202' || o.final !== undefined);

function printProgress(tenth: number, operations: Operation[], opts: Options, seconds: number, memory: Memory): void {
  const answered = operations.filter((o) => o.outcome !== undefined);
  const unfinished = operations.filter((o) => !finished(o)).length;
  const hung = operations.filter((o) => o.outcome === 'hung' || o.final === 'hung').length;
  const outcomes = describeTally(tally(answered.map((o) => o.outcome!)));
  print(
    `[${String(tenth * 10).padStart(3)}%] ${operations.length}/${opts.requests} sent in ${fmt(seconds, 1)} s (${fmt(operations.length / seconds, 1)}/s); answered ${answered.length} (${outcomes}), unfinished ${unfinished} (async tasks included), hung ${hung}; RSS ${describeMemory(memory)}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The books

type IdDoc = { _id: string };

async function allIds(tasks: Collection<IdDoc>): Promise<Set<string>> {
  const docs = await tasks.find({}, { projection: { _id: 1 } }).toArray();
  return new Set(docs.map((doc) => doc._id));
}

/**
 * FerretDB serves an `_id` equality from its index but runs `$in` over every document, so a few ids are looked up
 * one by one and many by reading every id again.
 */
async function stillMissing(tasks: Collection<IdDoc>, ids: string[]): Promise<string[]> {
  if (ids.length > BY_ID_LOOKUPS_MAX) {
    const present = await allIds(tasks);
    return ids.filter((id) => !present.has(id));
  }
  const left: string[] = [];
  for (let i = 0; i < ids.length; i += 16) {
    const chunk = ids.slice(i, i + 16);
    const found = await Promise.all(chunk.map((id) => tasks.findOne({ _id: id }, { projection: { _id: 1 } })));
    left.push(...chunk.filter((_, j) => !found[j]));
  }
  return left;
}

/** The accepted tasks without a record once the worker has had RECORDS_WAIT_MS to write them. */
async function missingRecords(mongo: MongoClient, accepted: string[]): Promise<{ missing: string[]; waitedS: number }> {
  const tasks = mongo.db().collection<IdDoc>('tasks');
  const started = Date.now();
  let missing = await stillMissing(tasks, accepted);
  while (missing.length > 0 && Date.now() - started < RECORDS_WAIT_MS) {
    await sleep(2000);
    missing = await stillMissing(tasks, missing);
  }
  return { missing, waitedS: (Date.now() - started) / 1000 };
}

interface Billing {
  /** Images in the 200 answers of image edits, and the billing records of those tasks. */
  delivered: number;
  billed: number;
  /** Tasks whose records differ from their images. */
  mismatched: string[];
  /** Billing records of any other task (an image edit not answered 200). */
  other: number;
}

async function billing(mongo: MongoClient, operations: Operation[]): Promise<Billing> {
  const records = await mongo
    .db()
    .collection<{ taskId: string }>('billing_records')
    .find({}, { projection: { taskId: 1 } })
    .toArray();
  const perTask = new Map(tally(records.map((r) => r.taskId)));
  const answered = operations.filter((o) => o.kind === 'image' && o.images !== undefined && o.taskId);
  const answeredIds = new Set(answered.map((o) => o.taskId!));
  return {
    delivered: answered.reduce((sum, o) => sum + o.images!, 0),
    billed: answered.reduce((sum, o) => sum + (perTask.get(o.taskId!) ?? 0), 0),
    mismatched: answered.filter((o) => (perTask.get(o.taskId!) ?? 0) !== o.images).map((o) => o.taskId!),
    other: records.filter((r) => !answeredIds.has(r.taskId)).length,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printSetup(opts: Options, hungAfterMs: number): void {
  print('Soak benchmark');
  printMachine();
  print(
    `  load:       ${opts.requests} calls open-loop at ${opts.rate}/s (about ${fmt(opts.requests / opts.rate / 60, 1)} min); per 100: 49 embeddings, 25 chat, 25 async (X-Async, polled every ${POLL_MS} ms), 1 image edit (${IMAGE_MODEL}, n=2, 512*512, local engine)`,
  );
  print(`  hung:       no final answer ${hungAfterMs} ms after the send (SYNC_TIMEOUT_MS + 5 s)`);
  print();
}

/** A table row: how many, their times (ms) and how they ended. */
function answerRow(label: string, times: number[], endings: string[]): string[] {
  const s: Stats = stats(times);
  return [label, String(endings.length), fmt(s.p50), fmt(s.p99), fmt(s.max), describeTally(tally(endings))];
}

function printAnswers(operations: Operation[]): void {
  const kinds: Kind[] = ['embeddings', 'chat', 'async', 'image'];
  const followed = operations.filter((o) => o.final !== undefined);
  print('Answers (ms from send; async: the 202, then the task final)');
  print(
    table([
      ['', 'calls', 'p50', 'p99', 'max', 'outcomes'],
      ...kinds.map((kind) => {
        const own = operations.filter((o) => o.kind === kind);
        return answerRow(
          kind,
          own.filter((o) => o.ms !== undefined).map((o) => o.ms!),
          own.map((o) => o.outcome ?? 'none'),
        );
      }),
      answerRow(
        '  async, until final',
        followed.map((o) => o.finalMs!),
        followed.map((o) => o.final!),
      ),
    ]),
  );
  const pollErrors = operations.flatMap((o) => o.pollErrors ?? []);
  if (pollErrors.length) print(`  polls answered other than 200: ${describeTally(tally(pollErrors))}`);
  print();
}

/** Relative growth of a process's memory between two tenths of the run. */
const growthOf = (memory: Map<number, Memory>, name: (typeof WATCHED)[number], from: number, to: number) =>
  (memory.get(to)![name] - memory.get(from)![name]) / memory.get(from)![name];

function printMemory({ memory, floors }: Progress, drained: Memory): void {
  const points = [...memory.keys()].sort((a, b) => a - b);
  print('Resident memory (MB) as each tenth of the calls was sent, the floor of the tenth that ends there (its lowest');
  print('sample; the first tenth is the warm-up), and once every answer was in');
  print(
    table([
      ['', ...points.map((t) => `${t * 10}%`), 'drained'],
      ...WATCHED.flatMap((name) => [
        [name, ...points.map((t) => fmt(memory.get(t)![name], 0)), fmt(drained[name], 0)],
        [`  floor`, ...points.map((t) => fmt(floors.get(t)![name], 0)), ''],
      ]),
    ]),
  );
  print();
}

interface Books {
  accepted: number;
  withoutId: number;
  missing: string[];
  waitedS: number;
  billing: Billing;
}

function printBooks(books: Books): void {
  print('Books (MongoDB after the run)');
  print(
    `  accepted tasks (200 or 202 with a task id): ${books.accepted}; answered 200/202 without a task id: ${books.withoutId}`,
  );
  print(
    `  task records missing: ${books.missing.length} (checked for ${fmt(books.waitedS, 1)} s)${books.missing.length ? `, e.g. ${books.missing.slice(0, 10).join(', ')}` : ''}`,
  );
  const b = books.billing;
  print(
    `  image edits answered 200: ${b.delivered} images delivered, ${b.billed} billing records for those tasks; tasks that differ: ${b.mismatched.length}${b.mismatched.length ? ` (${b.mismatched.slice(0, 10).join(', ')})` : ''}; billing records of other tasks: ${b.other}`,
  );
  print();
}

function printSummary(operations: Operation[], progress: Progress, books: Books): void {
  const hung = operations.filter((o) => o.outcome === 'hung' || o.final === 'hung').length;
  const late = stats(progress.lateness);
  print('Summary');
  print(
    table([
      ['', 'measured', 'target', ''],
      [
        'hung (no answer within SYNC_TIMEOUT_MS + 5 s)',
        String(hung),
        String(TARGETS.hung),
        verdict(hung === TARGETS.hung),
      ],
      [
        'task records missing for accepted tasks',
        `${books.missing.length} of ${books.accepted}`,
        String(TARGETS.missing),
        verdict(books.missing.length === TARGETS.missing),
      ],
      [
        'billing records vs images delivered (200s)',
        `${books.billing.billed} / ${books.billing.delivered}`,
        'equal',
        verdict(books.billing.billed === books.billing.delivered && books.billing.mismatched.length === 0),
      ],
      ...WATCHED.flatMap((name) => {
        const { warm, mid, end } = GROWTH_POINTS;
        // Floors are keyed by the tenth they end: the first after warm-up is the one from 10 % to 20 %.
        const growth = growthOf(progress.floors, name, warm + 1, end);
        const secondHalf = growthOf(progress.floors, name, mid + 1, end);
        const sampled = growthOf(progress.memory, name, warm, end);
        return [
          [
            `${name} RSS growth, floors ${warm * 10}–${warm * 10 + 10}% → ${end * 10 - 10}–${end * 10}%`,
            `${fmt(growth * 100, 1)}%`,
            `< ${TARGETS.rssGrowth * 100}%`,
            verdict(growth < TARGETS.rssGrowth),
          ],
          [
            `  (floors ${mid * 10}–${mid * 10 + 10}% → ${end * 10 - 10}–${end * 10}%)`,
            `${fmt(secondHalf * 100, 1)}%`,
            '',
            '',
          ],
          [`  (single samples at ${warm * 10}% and ${end * 10}%)`, `${fmt(sampled * 100, 1)}%`, '', ''],
        ];
      }),
      [
        '  (calls answered other than 200/202)',
        String(operations.filter((o) => !['200', '202'].includes(o.outcome ?? '')).length),
        '',
        '',
      ],
      [
        '  (rate kept: sent/s, lateness p99)',
        `${fmt(operations.length / progress.durationS, 1)}/s, ${fmt(late.p99)} ms`,
        '',
        '',
      ],
    ]),
  );
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = options();
  const pids = servicePids();
  for (const name of WATCHED)
    if (!pids.get(name)) throw new Error(`BENCH_PIDS names no ${name}: run this through \`${COMMAND}\``);
  const hungAfterMs = syncTimeoutMs() + 5000;
  const client: Client = {
    apiUrl: env('BENCH_API_URL', COMMAND),
    apiKey: env('BENCH_API_KEY', COMMAND),
    hungAfterMs,
    image: dataUri(await noisyPng(64, 64)),
    runId: Date.now().toString(36),
  };
  printSetup(opts, hungAfterMs);

  const operations: Operation[] = [];
  const { progress, pending } = await drive(opts, client, operations, pids);
  const lastSent = performance.now();
  await Promise.all(pending);
  print(`every call answered (or given up) ${fmt((performance.now() - lastSent) / 1000, 1)} s after the last send`);
  print();
  const drained = memoryNow(pids);

  const acceptedOps = operations.filter((o) => o.outcome === '200' || o.outcome === '202');
  const mongo = await MongoClient.connect(env('BENCH_MONGODB_URI', COMMAND));
  try {
    const accepted = acceptedOps.filter((o) => o.taskId).map((o) => o.taskId!);
    const { missing, waitedS } = await missingRecords(mongo, accepted);
    const books = {
      accepted: accepted.length,
      withoutId: acceptedOps.length - accepted.length,
      missing,
      waitedS,
      billing: await billing(mongo, operations),
    };
    printAnswers(operations);
    printMemory(progress, drained);
    printBooks(books);
    printSummary(operations, progress, books);
  } finally {
    await mongo.close();
  }
}

runBench('soak', main, () => agent.close());
