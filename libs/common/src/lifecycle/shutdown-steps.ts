import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';

const SHUTDOWN_HOOKS = ['onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'];

type Step = (...args: unknown[]) => unknown;

/**
 * Follows the steps of the app's graceful close that have started and not finished: each shutdown hook
 * (`JobPickup.onModuleDestroy`, `GatewayRedis.onApplicationShutdown`, …) and the HTTP server's close, so that a forced
 * shutdown can name what it gave up waiting for. Returns the function that lists them.
 */
export function watchShutdownSteps(app: INestApplicationContext): () => string[] {
  const running = new Set<string>();
  const watch = (owner: object, method: string, name: string) => {
    const methods = owner as Record<string, unknown>;
    const step = methods[method];
    if (typeof step !== 'function') return;
    methods[method] = async (...args: unknown[]) => {
      running.add(name);
      try {
        return await (step as Step).apply(owner, args);
      } finally {
        running.delete(name);
      }
    };
  };

  const instances = new Set<object>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of [...module.providers.values(), ...module.controllers.values()]) {
      const instance: unknown = wrapper.instance;
      if (typeof instance === 'object' && instance !== null) instances.add(instance);
    }
  }
  for (const instance of instances) {
    for (const hook of SHUTDOWN_HOOKS) watch(instance, hook, `${instance.constructor.name}.${hook}`);
  }
  // Nest closes the HTTP server between beforeApplicationShutdown and onApplicationShutdown; a request still in
  // progress holds it open. Its adapter, not the app: the app Nest hands out is a proxy that ignores assignments.
  if ('getHttpAdapter' in app) watch((app as INestApplication).getHttpAdapter(), 'close', 'HTTP server');
  return () => [...running];
}
