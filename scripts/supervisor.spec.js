'use strict';
const { spawn } = require('node:child_process');
const { createBackoff, describeExit, parseWorkerCount, supervise, workerPorts } = require('./supervisor');

describe('createBackoff', () => {
  const backoff = () => createBackoff({ initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 });

  it('doubles from 0.5 s up to 30 s while the process keeps failing quickly', () => {
    const delays = backoff();
    expect(Array.from({ length: 9 }, () => delays.next(100))).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('starts again from 0.5 s after a run that lasted a minute', () => {
    const delays = backoff();
    [0, 0, 0].forEach(() => delays.next(0));
    expect(delays.next(60_000)).toBe(500);
    expect(delays.next(10)).toBe(1000);
  });
});

describe('describeExit', () => {
  it('names the signal that killed a process, or its exit code', () => {
    expect(describeExit(null, 'SIGKILL')).toBe('was killed by SIGKILL');
    expect(describeExit(1, null)).toBe('exited with code 1');
  });
});

describe('workerPorts', () => {
  it('gives each worker the next free port up from WORKER_PORT, past the api ports', () => {
    expect(workerPorts(3001, 1, [3000, 3003])).toEqual([3001]);
    expect(workerPorts(3001, 4, [3000, 3003])).toEqual([3001, 3002, 3004, 3005]);
  });
});

describe('parseWorkerCount', () => {
  it('reads --workers N and --workers=N, 1 by default', () => {
    expect(parseWorkerCount([])).toBe(1);
    expect(parseWorkerCount(['--workers', '3'])).toBe(3);
    expect(parseWorkerCount(['--workers=2'])).toBe(2);
  });

  it.each([['0'], ['two'], ['1.5'], [undefined]])('refuses --workers %s', (value) => {
    expect(() => parseWorkerCount(['--workers', ...(value === undefined ? [] : [value])])).toThrow(
      /--workers needs a whole number from 1/,
    );
  });
});

describe('supervise', () => {
  // Real processes: a node that lives until it is killed.
  const sleeper = async () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const stopChild = (child) =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  const quickBackoff = () => createBackoff({ initialMs: 10, maxMs: 40, resetAfterMs: 60_000 });
  const exited = (child) => new Promise((resolve) => child.once('exit', resolve));
  const until = async (check) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it('starts a killed process again, logging its name, pid, signal and the delay', async () => {
    const lines = [];
    const supervised = supervise({
      name: 'worker-1',
      start: sleeper,
      stopChild,
      log: (line) => lines.push(line),
      backoff: quickBackoff(),
    });
    const first = await supervised.begin();
    first.kill('SIGKILL');
    await until(() => supervised.starts() === 2 && supervised.child() !== null);
    const second = supervised.child();
    expect(second.pid).not.toBe(first.pid);
    expect(lines[0]).toBe(`worker-1 (pid ${first.pid}) was killed by SIGKILL; restarting it in 0.0 s`);
    expect(lines[1]).toBe(`worker-1 restarted (pid ${second.pid})`);

    await supervised.stop();
    expect(second.signalCode).toBe('SIGTERM');
  });

  it('retries a restart that fails, with the next delay, and stops without restarting', async () => {
    const lines = [];
    let attempts = 0;
    const start = async () => {
      attempts += 1;
      if (attempts === 2) throw new Error('port in use');
      return sleeper();
    };
    const supervised = supervise({
      name: 'redis',
      start,
      stopChild,
      log: (line) => lines.push(line),
      backoff: quickBackoff(),
    });
    const first = await supervised.begin();
    first.kill('SIGKILL');
    await until(() => supervised.starts() === 2);
    expect(lines[1]).toBe('redis failed to start (port in use); restarting it in 0.0 s');

    const running = supervised.child();
    await supervised.stop();
    expect(running.exitCode !== null || running.signalCode !== null).toBe(true);
    const after = attempts;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(attempts).toBe(after);
  });

  it('does not restart a process that exits while it is being stopped', async () => {
    const lines = [];
    const supervised = supervise({ name: 'api', start: sleeper, stopChild, log: (line) => lines.push(line) });
    const child = await supervised.begin();
    const gone = exited(child);
    await supervised.stop();
    await gone;
    expect(supervised.starts()).toBe(1);
    expect(lines).toEqual([]);
  });
});
