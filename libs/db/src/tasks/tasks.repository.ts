import { utcDay } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { GroupCommitInserter } from '../shared/group-commit';
import { Task } from './task.schema';

export type TaskRecord = Task;

/** What every task job carries about its request (structurally the queue's TaskEnvelope). */
export interface TaskIdentity {
  taskId: string;
  appId: string;
  requestId: string;
  endpoint: string;
  model: string;
  resolvedModel: string;
  createdAt: number;
}

/** The fields of a task record that come from the request itself, whoever writes the record. */
export function taskBase(task: TaskIdentity): Pick<Task, '_id' | 'appId' | 'requestId' | 'endpoint' | 'model' | 'resolvedModel' | 'createdAt' | 'day'> {
  return {
    _id: task.taskId,
    appId: task.appId,
    requestId: task.requestId,
    endpoint: task.endpoint,
    model: task.model,
    resolvedModel: task.resolvedModel,
    createdAt: new Date(task.createdAt),
    day: utcDay(task.createdAt),
  };
}

@Injectable()
export class TasksRepository {
  private readonly inserter: GroupCommitInserter<Task>;

  constructor(@InjectModel(Task.name) private readonly model: Model<Task>) {
    this.inserter = new GroupCommitInserter<Task>(() => this.model.collection as never);
  }

  /** Records a finished task; idempotent per task id, so a retried job never records twice. */
  record(task: Task): Promise<void> {
    return this.inserter.insert(task);
  }

  /** A task of this application; another application's task id reads as absent. */
  findForApp(taskId: string, appId: string): Promise<TaskRecord | null> {
    return this.model.findOne({ _id: taskId, appId }).lean<TaskRecord>().exec();
  }

  findById(taskId: string): Promise<TaskRecord | null> {
    return this.model.findById(taskId).lean<TaskRecord>().exec();
  }
}
