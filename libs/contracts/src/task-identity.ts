/**
 * Who asked for a task and what: carried by every task job (TaskEnvelope, libs/queue) and written into its task
 * record (taskBase, libs/db), whichever process writes it.
 */
export interface TaskIdentity {
  taskId: string;
  appId: string;
  requestId: string;
  /** Public model id as requested, and the catalog id it resolved to. */
  model: string;
  resolvedModel: string;
  endpoint: string;
  createdAt: number;
  /**
   * The API key that called (`signature` for a signed request), and whether it asked for `X-Async: enable`: kept on
   * the task record, which the console filters by. Absent on jobs queued before they were carried.
   */
  keyId?: string;
  async?: boolean;
  /** The account owning the application: the task is listed in the account's Requests too. */
  ownerId?: string;
}
