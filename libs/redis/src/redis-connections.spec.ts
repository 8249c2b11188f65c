import Redis from 'ioredis';
import { closeRedis } from './redis-connections';

describe('closeRedis', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const client = (status: Redis['status'], quit: () => Promise<'OK'>) => ({
    status,
    quit: jest.fn(quit),
    disconnect: jest.fn(),
  });

  it('sends QUIT while Redis answers, then drops the connection', async () => {
    const ready = client('ready', () => Promise.resolve('OK'));
    await closeRedis(ready);
    expect(ready.quit).toHaveBeenCalled();
    expect(ready.disconnect).toHaveBeenCalled();
  });

  it('gives up on a QUIT that gets no answer', async () => {
    const hung = client('ready', () => new Promise<'OK'>(() => undefined));
    const closed = closeRedis(hung, 2000);
    await jest.advanceTimersByTimeAsync(2000);
    await closed;
    expect(hung.disconnect).toHaveBeenCalled();
  });

  it('drops a connection that is waiting to reconnect without queueing a QUIT behind its commands', async () => {
    const away = client('reconnecting', () => new Promise<'OK'>(() => undefined));
    await closeRedis(away);
    expect(away.quit).not.toHaveBeenCalled();
    expect(away.disconnect).toHaveBeenCalled();
  });
});
