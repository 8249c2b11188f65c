import { FastifyReply } from 'fastify';

/** Answers `csv` as a file download named `filename` (letters, digits, `-`, `_` and `.` only). */
export function sendCsv(reply: FastifyReply, filename: string, csv: string): string {
  reply.header('content-type', 'text/csv; charset=utf-8');
  reply.header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`);
  return csv;
}
