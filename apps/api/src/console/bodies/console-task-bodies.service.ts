import { GatewayError } from '@gateway/common';
import { ApplicationsRepository, KeptBody, TaskBodiesRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';

/**
 * A task's kept request and response bodies, for its application's owner only: another user's application, a task
 * of another application and bodies past their retention all read as absent (404).
 */
@Injectable()
export class ConsoleTaskBodiesService {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly bodies: TaskBodiesRepository,
  ) {}

  async get(appId: string, ownerId: string, taskId: string) {
    const app = await this.applications.findOwned(appId, ownerId);
    if (!app) throw new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'id' });
    const kept = await this.bodies.findForApp(taskId, appId);
    if (!kept) {
      throw new GatewayError(
        'NotFound',
        app.logBodies
          ? `no bodies are kept for task ${taskId}: it was made before log_bodies was on, or its retention has passed`
          : `application ${appId} does not keep request and response bodies (log_bodies is off)`,
        { param: 'task_id' },
      );
    }
    return {
      task_id: kept._id,
      app_id: appId,
      request: presentBody(kept.request),
      response: presentBody(kept.response),
      created_at: new Date(kept.createdAt).toISOString(),
      expires_at: new Date(kept.expiresAt).toISOString(),
    };
  }
}

function presentBody(body: KeptBody) {
  return { body: body.text, chars: body.chars, truncated: body.truncated };
}
