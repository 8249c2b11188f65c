import { EventEmitter } from 'node:events';
import { Logger } from 'pino';
import { armShutdownDeadline, FORCED_SHUTDOWN_EXIT_CODE } from './shutdown-deadline';

describe('armShutdownDeadline', () => {
  let host: EventEmitter & { exit: jest.Mock };
  let logger: { info: jest.Mock; fatal: jest.Mock };

  beforeEach(() => {
    jest.useFakeTimers();
    host = Object.assign(new EventEmitter(), { exit: jest.fn() });
    logger = { info: jest.fn(), fatal: jest.fn() };
    armShutdownDeadline({
      timeoutMs: 3000,
      logger: logger as unknown as Logger,
      stillClosing: () => ['JobPickup.onModuleDestroy'],
      host: host as unknown as NodeJS.Process,
    });
  });

  afterEach(() => jest.useRealTimers());

  it('exits with the forced code, naming what was still closing, once the timeout passes after SIGTERM', () => {
    host.emit('SIGTERM', 'SIGTERM');
    jest.advanceTimersByTime(2999);
    expect(host.exit).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(host.exit).toHaveBeenCalledWith(FORCED_SHUTDOWN_EXIT_CODE);
    expect(logger.fatal).toHaveBeenCalledWith(
      expect.objectContaining({ timeoutMs: 3000, stillClosing: ['JobPickup.onModuleDestroy'] }),
      expect.stringContaining('forced shutdown'),
    );
  });

  it('keeps the process alive for its deadline: the timer is not unref’d', () => {
    const setTimeoutSpy = jest.spyOn(global, 'setTimeout');
    host.emit('SIGINT', 'SIGINT');
    const timer = setTimeoutSpy.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(true);
    setTimeoutSpy.mockRestore();
  });

  it('exits at once on a second signal, but not on the same signal delivered twice within a second', () => {
    host.emit('SIGINT', 'SIGINT');
    jest.advanceTimersByTime(10);
    host.emit('SIGTERM', 'SIGTERM');
    expect(host.exit).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1500);
    host.emit('SIGINT', 'SIGINT');
    expect(host.exit).toHaveBeenCalledTimes(1);
    expect(host.exit).toHaveBeenCalledWith(FORCED_SHUTDOWN_EXIT_CODE);
  });

  it('does nothing until a signal arrives', () => {
    jest.advanceTimersByTime(60_000);
    expect(host.exit).not.toHaveBeenCalled();
  });
});
