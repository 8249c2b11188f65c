'use strict';
// A worker thread of bench/held.ts: GETs workerData.url every workerData.everyMs (start to start, one probe at a
// time, over one keep-alive connection) until any message arrives, then posts back every probe as { at, ms, ok }.
// A thread of its own, so that thousands of answers reaching the bench at once do not delay the probes.
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');

const PROBE_TIMEOUT_MS = 10_000;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const probes = [];
let stopped = false;
parentPort.once('message', () => (stopped = true));

function probe() {
  return new Promise((resolve) => {
    const at = Date.now();
    const started = performance.now();
    const done = (ok) => resolve({ at, ms: performance.now() - started, ok });
    const request = http.get(workerData.url, { agent, timeout: PROBE_TIMEOUT_MS }, (response) => {
      response.resume();
      response.once('end', () => done(response.statusCode === 200));
      response.once('error', () => done(false));
    });
    request.once('timeout', () => request.destroy(new Error('timeout')));
    request.once('error', () => done(false));
  });
}

async function run() {
  while (!stopped) {
    const result = await probe();
    probes.push(result);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, workerData.everyMs - result.ms)));
  }
  agent.destroy();
  parentPort.postMessage(probes);
}

void run();
