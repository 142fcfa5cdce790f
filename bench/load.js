'use strict';
// The load generator, run as a child process by run.js so that autocannon's own CPU work does not
// share the event loop (or the CPU accounting) of the servers being measured.
// Protocol (IPC): run.js sends { id, url, method, paths, headers, body, connections, duration, amount? };
// this answers { id, result } or { id, error }.

const autocannon = require('autocannon');

function run(job) {
  return new Promise((resolve, reject) => {
    let i = 0;
    const paths = job.paths;
    const options = {
      url: job.url,
      connections: job.connections,
      duration: job.duration,
      amount: job.amount,
      method: job.method,
      headers: job.headers,
      body: job.body,
    };
    if (paths.length > 1) {
      options.requests = [
        {
          setupRequest(request) {
            request.path = paths[i++ % paths.length];
            return request;
          },
        },
      ];
    } else {
      options.url = job.url + paths[0];
    }
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

process.on('message', async (job) => {
  if (job === 'exit') return process.exit(0);
  try {
    const r = await run(job);
    process.send({
      id: job.id,
      result: {
        duration: r.duration,
        ok: r['2xx'],
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        latencyP50: r.latency.p50,
        latencyP99: r.latency.p99,
        reqPerSec: r['2xx'] / r.duration,
      },
    });
  } catch (error) {
    process.send({ id: job.id, error: String((error && error.stack) || error) });
  }
});
process.on('disconnect', () => process.exit(0));
