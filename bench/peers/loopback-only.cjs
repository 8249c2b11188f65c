'use strict';
/**
 * Preload (`node -r bench/peers/loopback-only.cjs …`) for peer gateways the overhead bench starts: Portkey's server
 * listens on all interfaces and has no option for a host, and the bench's servers must listen on loopback only. A
 * listen without a host gets '127.0.0.1'; a listen that names a host or a socket path is left alone. CommonJS, so it
 * also loads with `-r` ahead of an ESM entry point.
 */
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  // listen(port[, backlog][, callback]): put the host right after the port.
  if (typeof args[0] === 'number' && typeof args[1] !== 'string')
    args.splice(1, args[1] === undefined ? 1 : 0, '127.0.0.1');
  // listen({ port, … }) without a host or a path.
  else if (args[0] && typeof args[0] === 'object' && !args[0].host && !args[0].path)
    args[0] = { ...args[0], host: '127.0.0.1' };
  return listen.apply(this, args);
};
