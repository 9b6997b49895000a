// @neura/nn/worker: training in a Web Worker and the browser's storage around it. The worker entry calls
// `startWorkerTrainer(train)`; the page calls `trainInWorker(worker, config)` and, for what the trained model
// answers (text generation, …), `requestWorker(worker, data)`. Light imports only (no compiler,
// no runtime), so a page that trains in a worker bundles little; browser-safe (no `node:` import).

export { type ErrorData, FROM_WORKER_KINDS, type FromWorker, type MessageEndpoint, TO_WORKER_KINDS, type ToWorker, WORKER_PROTOCOL, type WorkerMessage, WorkerProtocolError, checkFromWorker, checkToWorker } from './worker/protocol.js';
export { type RequestWorkerOptions, requestWorker } from './worker/requestWorker.js';
export { startWorkerTrainer, type WorkerContext } from './worker/startWorkerTrainer.js';
export { type TrainInWorkerOptions, trainInWorker, type WorkerEvent, type WorkerRun, WorkerTrainingError } from './worker/trainInWorker.js';
export { type OpfsAtomicMode, type OpfsCheckpointOptions, type OpfsCheckpoints, OpfsCheckpointError, opfsCheckpoints } from './worker/opfsCheckpoints.js';
export { type FetchCachedOptions, FetchCachedError, type FetchFailure, type FetchProgress, fetchCached, fetchWeights, type ResponseCache, sha256Hex } from './worker/fetchCached.js';
