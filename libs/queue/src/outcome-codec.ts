import type { TaskOutcome } from './job-contracts';

/**
 * Wire form of a task outcome on the reply channel and in the outcome key: `<meta JSON>\n<body JSON>`.
 * JSON.stringify never emits a raw newline, so the first one splits the two, and the body (often the bulk:
 * embedding vectors) travels as text the api can send without parsing it.
 */
export function encodeOutcome(taskId: string, outcome: TaskOutcome): string {
  if (!outcome.ok) return `${JSON.stringify({ taskId, ...outcome })}\n`;
  const { body, ...meta } = outcome;
  return `${JSON.stringify({ taskId, ...meta })}\n${body}`;
}

export function decodeOutcome(text: string): { taskId: string; outcome: TaskOutcome } {
  const split = text.indexOf('\n');
  const { taskId, ...meta } = JSON.parse(split < 0 ? text : text.slice(0, split)) as { taskId: string } & Record<
    string,
    unknown
  >;
  const outcome = (meta.ok ? { ...meta, body: text.slice(split + 1) } : meta) as TaskOutcome;
  return { taskId, outcome };
}
