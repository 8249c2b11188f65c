/** Parsing and arithmetic for bench:capacity: command counters, child processes, and the sizing table. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { fmt } from '../shared';

export interface Cost {
  /** CPU seconds per request (or per second, for idle rates) by process. */
  cpu: Record<string, number>;
  /** Redis commands per request, by command. */
  redis: Map<string, number>;
  /** Database commands per request, by command. */
  database: Map<string, number>;
}

/** Calls by command from INFO commandstats (`cmdstat_get:calls=12,usec=…`). */
export function commandCounts(info: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts.set(match[1], Number(match[2]));
  return counts;
}

/** Requests by command from FerretDB's Prometheus metrics, summed over opcodes. */
export function ferretDbCommands(metrics: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of metrics.matchAll(/^ferretdb_client_requests_total\{([^}]*)\}\s+(\S+)/gm)) {
    const command = /command="([^"]*)"/.exec(match[1])?.[1] ?? 'unknown';
    counts.set(command, (counts.get(command) ?? 0) + Number(match[2]));
  }
  return counts;
}

/**
 * Rows PostgreSQL has inserted, updated and deleted in the database's tables so far: the documents FerretDB wrote,
 * one row each. Backends report these at most once a second, and an idle one after 10 s: read it after a quiet spell.
 */
export function rowsWritten(psql: string, url: string): number {
  const sql =
    'SELECT tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = current_database()';
  return Number(execFileSync(psql, [url, '-At', '-c', sql], { encoding: 'utf8' }).trim());
}

/** The pids whose parent is `parent` (PostgreSQL's backends and helpers under its server). */
export function childPids(parent: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4, the parent pid, follows the parenthesised command name and the state.
      if (Number(stat.split(') ')[1].split(' ')[1]) === parent) children.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return children;
}

/** A core kept below this much busy leaves room for bursts and for the event loop to stay responsive. */
const TARGET_UTILISATION = 0.6;

/**
 * Rows of the sizing table for a scenario's cost at each rate: api and worker processes (one core each), Redis's
 * command rate and the share of its one core, database commands and documents written per second, and the
 * database's cores (FerretDB and PostgreSQL together).
 */
export function sizingRows(cost: Cost, documents: number, rates: number[]): string[][] {
  const processes = (cpu: number, rate: number) => Math.max(1, Math.ceil((cpu * rate) / TARGET_UTILISATION));
  const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
  return [
    [
      'requests/s',
      'api processes',
      'worker processes',
      'Redis commands/s',
      'Redis core',
      'db commands/s',
      'documents/s',
      'db cores',
    ],
    ...rates.map((rate) => [
      String(rate),
      String(processes(cost.cpu.api, rate)),
      String(processes(cost.cpu.worker, rate)),
      fmt(total(cost.redis) * rate, 0),
      `${fmt(cost.cpu.redis * rate * 100, 0)} %`,
      fmt(total(cost.database) * rate, 0),
      fmt(documents * rate, 0),
      fmt(((cost.cpu.ferretdb ?? 0) + (cost.cpu.postgres ?? 0)) * rate, 2),
    ]),
  ];
}
