import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { GroupCommitInserter } from '../shared/group-commit';
import { Task } from './task.schema';

export type TaskRecord = Task;

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
