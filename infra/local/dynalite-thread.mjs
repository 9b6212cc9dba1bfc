// dynalite on its own thread (see dynamo.ts): starts the server, reports its port, and closes it
// when the parent asks. Plain JavaScript so any loader (tsx, vitest) can start it as a Worker.
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';

const server = dynalite({ path: workerData.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.on('error', (error) => parentPort.postMessage({ error: String(error) }));
server.listen(workerData.port ?? 0, '127.0.0.1', () =>
  parentPort.postMessage({ port: server.address().port }),
);
parentPort.on('message', (message) => {
  if (message === 'close') server.close(() => parentPort.postMessage({ closed: true }));
});
