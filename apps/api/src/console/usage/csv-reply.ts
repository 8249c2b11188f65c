import { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';

/**
 * Answers `csv` as a file download named `filename` (letters, digits, `-`, `_` and `.` only): a whole text, or lines
 * streamed as they are produced.
 */
export function sendCsv(reply: FastifyReply, filename: string, csv: string): string;
export function sendCsv(reply: FastifyReply, filename: string, csv: AsyncIterable<string>): Readable;
export function sendCsv(reply: FastifyReply, filename: string, csv: string | AsyncIterable<string>): string | Readable {
  reply.header('content-type', 'text/csv; charset=utf-8');
  reply.header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`);
  return typeof csv === 'string' ? csv : Readable.from(csv);
}
