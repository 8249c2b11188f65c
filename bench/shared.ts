/**
 * What bench:held and bench:soak share: the BENCH_* settings scripts/bench.js passes, the services' pids and their
 * resident memory and open-files limit from /proc, percentiles, and the tables and verdicts they print.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
// The configuration's decorators need it loaded first.
import 'reflect-metadata';
import { Env } from '../libs/common/src/config/env';

export interface Stats {
  p50: number;
  p99: number;
  max: number;
}

/** A BENCH_* variable scripts/bench.js sets; missing means the bench was not started through it. */
export function env(name: string, command: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through \`${command}\``);
  return value;
}

/** The gateway's sync wait: what scripts/bench.js set, else the configuration's default. */
export function syncTimeoutMs(): number {
  return Number(process.env.BENCH_SYNC_TIMEOUT_MS) || new Env().SYNC_TIMEOUT_MS;
}

/**
 * Peer gateways the overhead and floor benches know: the package each runs from (for its version) and the headers
 * that route a request through it to the fake upstream, whose base URL ends in /v1.
 */
export const PEERS: Record<string, { package: string; headers: (upstreamUrl: string) => Record<string, string> }> = {
  portkey: {
    package: '@portkey-ai/gateway',
    headers: (upstreamUrl) => ({ 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamUrl }),
  },
};

/** The services' pids from BENCH_PIDS ("api:123,worker:456,…"). */
export function servicePids(): Map<string, number> {
  return new Map(
    (process.env.BENCH_PIDS ?? '')
      .split(',')
      .map((pair) => pair.split(':'))
      .filter(([name, pid]) => name && Number(pid) > 0)
      .map(([name, pid]) => [name, Number(pid)]),
  );
}

/** Resident memory in MB (VmRSS), or NaN once the process is gone. */
export function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** User + system CPU seconds of a process so far, or NaN once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return NaN;
  }
}

let cachedClockTicks: number | undefined;
function clockTicks(): number {
  if (cachedClockTicks === undefined) {
    try {
      cachedClockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      cachedClockTicks = 100;
    }
  }
  return cachedClockTicks;
}

/** The soft open-files limit of a process ("self" for this one), as /proc shows it. */
export function openFilesLimit(pid: number | 'self'): string {
  try {
    const limits = fs.readFileSync(`/proc/${pid}/limits`, 'utf8');
    return /^Max open files\s+(\S+)/m.exec(limits)?.[1] ?? '?';
  } catch {
    return '?';
  }
}

/** Nearest-rank percentiles. */
export function stats(values: number[]): Stats {
  if (values.length === 0) return { p50: NaN, p99: NaN, max: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

/** Counts of each label, most frequent first. */
export function tally(labels: Iterable<string>): [string, number][] {
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

export function describeTally(counts: [string, number][]): string {
  return counts.length ? counts.map(([label, n]) => `${label}: ${n}`).join(', ') : 'none';
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

export const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');

/** Left-aligned first column, right-aligned figures, a rule under the header row. */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => row[col].length)));
  const line = (row: string[]) =>
    row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('   ');
  const lines = [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('   '), ...rows.slice(1).map(line)];
  return lines.map((l) => `  ${l}`.trimEnd()).join('\n');
}

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** The machine and gateway lines every bench prints first. */
export function printMachine(): void {
  const cpus = os.cpus();
  print(
    `  machine:    ${cpus.length} CPU(s) (${cpus[0]?.model.trim() ?? 'unknown'}), ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, ${os.platform()} ${os.release()}`,
  );
  print(`  node:       ${process.version}`);
  print(
    `  gateway:    1 api + ${process.env.BENCH_WORKERS ?? '1'} worker(s), LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? '?'}, NODE_ENV=${process.env.BENCH_NODE_ENV ?? '?'}, WORKER_CONCURRENCY=${process.env.BENCH_WORKER_CONCURRENCY ?? '?'}, SYNC_TIMEOUT_MS=${syncTimeoutMs()}`,
  );
  if (process.env.BENCH_SETTINGS) print(`  set by the bench: ${process.env.BENCH_SETTINGS}`);
}

/** Runs a bench's main: a failure is printed with its stack and sets exit code 1; `cleanup` runs either way. */
export function runBench(name: string, main: () => Promise<void>, cleanup?: () => unknown): void {
  main()
    .catch((error) => {
      process.stderr.write(
        `${name} bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    })
    .finally(() => cleanup?.());
}
