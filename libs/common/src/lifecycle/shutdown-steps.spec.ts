import { Controller, Get, Injectable, Module, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { get } from 'node:http';
import { watchShutdownSteps } from './shutdown-steps';

let releaseDrain: () => void = () => undefined;

@Injectable()
class Draining implements OnModuleDestroy {
  onModuleDestroy(): Promise<void> {
    return new Promise((resolve) => (releaseDrain = resolve));
  }
}

@Injectable()
class ClosingLast implements OnApplicationShutdown {
  closed = false;
  onApplicationShutdown(): void {
    this.closed = true;
  }
}

@Module({ providers: [Draining, ClosingLast] })
class AppModule {}

let answerHeld: () => void = () => undefined;
let heldEntered: () => void = () => undefined;

@Controller()
class HoldingController {
  @Get('held')
  held(): Promise<string> {
    heldEntered();
    return new Promise((resolve) => (answerHeld = () => resolve('done')));
  }
}

@Module({ controllers: [HoldingController] })
class HttpModule {}

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('watchShutdownSteps', () => {
  it('names the shutdown hooks that have started and not finished, and still runs them as before', async () => {
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    const stillClosing = watchShutdownSteps(app);
    expect(stillClosing()).toEqual([]);

    const closed = app.close();
    await nextTurn();
    expect(stillClosing()).toEqual(['Draining.onModuleDestroy']);

    releaseDrain();
    await closed;
    expect(stillClosing()).toEqual([]);
    expect(app.get(ClosingLast).closed).toBe(true);
  });

  it('names the HTTP server while a request in progress holds it open', async () => {
    const app = await NestFactory.create(HttpModule, new FastifyAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    const stillClosing = watchShutdownSteps(app);
    // Without keep-alive: a connection left open after its answer would hold the server too.
    const url = `${await app.getUrl()}/held`;
    const entered = new Promise<void>((resolve) => (heldEntered = resolve));
    const request = new Promise((resolve) => get(url, { agent: false }, (res) => res.resume().on('end', resolve)));
    // On a loaded machine the request can take longer than a turn to reach the handler.
    await entered;

    const closed = app.close();
    await nextTurn();
    expect(stillClosing()).toEqual(['HTTP server']);

    answerHeld();
    await request;
    await closed;
    expect(stillClosing()).toEqual([]);
  });
});
