'use strict';
// Keeps the processes `npm start` runs alive: one that exits or is killed is started again after a delay that doubles
// with each quick failure, so a process that cannot start does not spin, and one that crashes once after a long run
// comes back at once. Plain Node with built-ins, as the other scripts.

const BACKOFF_DEFAULTS = Object.freeze({ initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 });

/**
 * The delay before the next start: initialMs, doubling to maxMs while the process keeps failing, back to initialMs
 * once a run has lasted resetAfterMs.
 */
function createBackoff({ initialMs, maxMs, resetAfterMs } = BACKOFF_DEFAULTS) {
  let failures = 0;
  return {
    next(uptimeMs) {
      if (uptimeMs >= resetAfterMs) failures = 0;
      const delay = Math.min(initialMs * 2 ** failures, maxMs);
      failures += 1;
      return delay;
    },
  };
}

/** "exited with code 1" or "was killed by SIGKILL". */
function describeExit(code, signal) {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

/**
 * Runs `start()` (resolving to a ChildProcess once it is usable) and starts it again each time the child exits, until
 * stop(). A restart whose start() throws is retried with the next delay. `stopChild(child)` ends a child with the
 * caller's signal and grace.
 */
function supervise({ name, start, stopChild, log, backoff = createBackoff() }) {
  let child = null;
  let stopping = false;
  let timer = null;
  let restarting = null;
  let starts = 0;

  const scheduleRestart = (reason, uptimeMs) => {
    if (stopping) return;
    const delay = backoff.next(uptimeMs);
    log(`${reason}; restarting it in ${(delay / 1000).toFixed(1)} s`);
    timer = setTimeout(() => {
      timer = null;
      restarting = restart().finally(() => (restarting = null));
    }, delay);
  };

  const watch = (started) => {
    child = started;
    starts += 1;
    const startedAt = Date.now();
    const onExit = (code, signal) => {
      child = null;
      scheduleRestart(`${name} (pid ${started.pid}) ${describeExit(code, signal)}`, Date.now() - startedAt);
    };
    // A child that died while start() was still waiting on it has already fired 'exit'.
    if (started.exitCode !== null || started.signalCode !== null) onExit(started.exitCode, started.signalCode);
    else started.once('exit', onExit);
  };

  const restart = async () => {
    let started;
    try {
      started = await start();
    } catch (error) {
      scheduleRestart(`${name} failed to start (${error.message})`, 0);
      return;
    }
    if (stopping) return stopChild(started);
    log(`${name} restarted (pid ${started.pid})`);
    watch(started);
  };

  return {
    name,
    /** The first start: resolves with the child once it is usable; rejects, without retrying, when it cannot start. */
    async begin() {
      const first = await start();
      watch(first);
      return first;
    },
    /** No more restarts; ends the running child, or the one being restarted once it has started. */
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await restarting;
      if (child) await stopChild(child);
    },
    child: () => child,
    starts: () => starts,
  };
}

/**
 * The operations-listener ports of `count` workers: `base`, then the next ones up, leaving out those in `taken`
 * (the api's ports), so the workers of one machine can each be scraped.
 */
function workerPorts(base, count, taken = []) {
  const ports = [];
  for (let port = base; ports.length < count; port += 1) if (!taken.includes(port)) ports.push(port);
  return ports;
}

/** `--workers N` from the command line (1 when absent); throws on anything but a whole number from 1. */
function parseWorkerCount(argv) {
  const index = argv.findIndex((arg) => arg === '--workers' || arg.startsWith('--workers='));
  if (index === -1) return 1;
  const value = argv[index].includes('=') ? argv[index].split('=')[1] : argv[index + 1];
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) throw new Error(`--workers needs a whole number from 1, not ${value}`);
  return count;
}

module.exports = { BACKOFF_DEFAULTS, createBackoff, describeExit, supervise, workerPorts, parseWorkerCount };
