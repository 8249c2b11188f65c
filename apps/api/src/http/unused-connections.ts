import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';

/**
 * Cuts, when the server closes, the connections that never sent a request (a client's spare connection, a TCP
 * health check). Node counts them as awaiting headers, so its close of idle connections spares them and the close
 * would wait for headersTimeout (60 s). Connections carrying a request are left to finish.
 */
export function closeUnusedConnectionsOnClose(fastify: FastifyInstance): void {
  const unused = new Set<Socket>();
  fastify.server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  fastify.server.on('request', (request: { socket: Socket }) => unused.delete(request.socket));
  fastify.addHook('preClose', (done) => {
    for (const socket of unused) socket.destroy();
    unused.clear();
    done();
  });
}
