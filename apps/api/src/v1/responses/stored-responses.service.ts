import { AppConfig, GatewayError } from '@gateway/common';
import {
  ChatMessage,
  ENDPOINTS,
  ResponseObject,
  ResponsesInputItem,
  taskIdOfItem,
  taskIdOfResponse,
} from '@gateway/contracts';
import { readFiledRecord, TaskRecord, TasksRepository } from '@gateway/db';
import { DeliveredTasks } from '@gateway/ledger';
import { Injectable } from '@nestjs/common';
import { TaskReader } from '../tasks/task-reader.service';

/** A stored response: the object it answered, and the conversation that came before it (chat messages). */
export interface StoredResponse {
  response: ResponseObject;
  conversation: ChatMessage[];
}

/**
 * Responses kept with `store` (docs/contracts.md, responses), read from the task records the gateway keeps anyway:
 * a response is its task's result body, and its conversation is kept beside the body. Like every task, they are the
 * application's own (another's reads as absent) and go with the body after TASK_RESULT_RETENTION.
 */
@Injectable()
export class StoredResponses {
  private readonly retentionMs: number;

  constructor(
    config: AppConfig,
    private readonly tasks: TasksRepository,
    private readonly delivered: DeliveredTasks,
    private readonly reader: TaskReader,
  ) {
    this.retentionMs = config.TASK_RESULT_RETENTION * 1000;
  }

  /** GET /v1/responses/{id}: the response object, or where its task stands while it runs or after it failed. */
  async read(responseId: string, appId: string): Promise<object> {
    const taskId = taskIdOfResponse(responseId);
    if (!taskId) throw notFound(responseId);
    const task = await this.reader.read(taskId, appId).catch((error: unknown) => {
      if (error instanceof GatewayError && error.code === 'NotFound') throw notFound(responseId);
      throw error;
    });
    if (task.endpoint !== ENDPOINTS.responses.name) throw notFound(responseId);
    const result = task.result as ResponseObject | null;
    if (task.status === 'succeeded') {
      // Not stored (`store: false`), or its body is past retention.
      if (!result || result.store === false) throw notFound(responseId);
      return result;
    }
    const error = task.error as { code: string; message: string } | null;
    return {
      id: responseId,
      object: 'response',
      created_at: task.created_at,
      status: task.status === 'running' ? 'in_progress' : task.status,
      background: false,
      error: error ? { code: error.code, message: error.message } : null,
      incomplete_details: null,
      model: task.model,
      output: [],
      usage: null,
    };
  }

  /** A stored response of this application to continue from; null when there is none to continue. */
  async find(responseId: string, appId: string): Promise<StoredResponse | null> {
    const taskId = taskIdOfResponse(responseId);
    return taskId ? this.findByTask(taskId, appId) : null;
  }

  /**
   * The output item an `item_reference` names, from the stored response it belongs to; null when there is none.
   * `seen` keeps the responses already read for this request.
   */
  async findItem(
    itemId: string,
    appId: string,
    seen: Map<string, Promise<StoredResponse | null>>,
  ): Promise<ResponsesInputItem | null> {
    const taskId = taskIdOfItem(itemId);
    if (!taskId) return null;
    let stored = seen.get(taskId);
    if (!stored) {
      stored = this.findByTask(taskId, appId);
      seen.set(taskId, stored);
    }
    return (await stored)?.response.output.find((item) => item.id === itemId) ?? null;
  }

  /** In Redis until its record is written, then in MongoDB, as GET /v1/tasks reads it. */
  private async findByTask(taskId: string, appId: string): Promise<StoredResponse | null> {
    const delivered = await this.delivered.find(taskId);
    if (delivered) {
      const { record, conversation } = readFiledRecord(delivered.record);
      if (!this.continuable(record, appId) || !delivered.outcome?.ok) return null;
      return storedOf(delivered.outcome.body, conversation);
    }
    const record = await this.tasks.findForApp(taskId, appId);
    if (!record || !this.continuable(record, appId) || this.pastRetention(record)) return null;
    const stored = await this.tasks.findConversation(taskId);
    return stored ? storedOf(stored.body, stored.conversation) : null;
  }

  private continuable(record: Pick<TaskRecord, 'appId' | 'endpoint' | 'status'>, appId: string): boolean {
    return record.appId === appId && record.endpoint === ENDPOINTS.responses.name && record.status === 'succeeded';
  }

  private pastRetention(record: TaskRecord): boolean {
    return Date.now() - new Date(record.finishedAt ?? record.createdAt).getTime() > this.retentionMs;
  }
}

function storedOf(body: string, conversation: string | undefined): StoredResponse | null {
  const response = JSON.parse(body) as ResponseObject;
  if (response.store === false || conversation === undefined) return null;
  return { response, conversation: JSON.parse(conversation) as ChatMessage[] };
}

function notFound(responseId: string): GatewayError {
  return new GatewayError('NotFound', `no stored response ${responseId} for this application`, { param: 'id' });
}
