import type { RefusedCallView, TaskView } from '@gateway/contracts';

const HEADER =
  'kind,time,app_id,task_id,request_id,endpoint,model,status,error_code,mode,latency_ms,tokens_in,tokens_out,images,cost';

/** One field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
function field(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The listed calls, refused and tasks, as CSV: one row each, the same columns for both. */
export function requestsCsv(appId: string | undefined, refused: RefusedCallView[], tasks: TaskView[]): string {
  const rows = [
    ...refused.map((call) => [
      'refused',
      call.at,
      call.app_id,
      '',
      call.request_id,
      `${call.method} ${call.route}`,
      call.model,
      call.status,
      call.code,
      call.async ? 'async' : 'sync',
      call.latency_ms,
      '',
      '',
      '',
      '',
    ]),
    ...tasks.map((task) => {
      const usage = task.usage as { prompt_tokens?: number; completion_tokens?: number; images?: number } | null;
      return [
        'task',
        task.created_at,
        appId,
        task.id,
        '',
        task.endpoint,
        task.model,
        task.status,
        task.error?.code,
        '',
        task.finished_at ? Date.parse(task.finished_at) - Date.parse(task.created_at) : '',
        usage?.prompt_tokens,
        usage?.completion_tokens,
        usage?.images,
        task.cost,
      ];
    }),
  ];
  return [HEADER, ...rows.map((row) => row.map(field).join(','))].join('\n') + '\n';
}
