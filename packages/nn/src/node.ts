// @neura/nn/node: the Node-only part of @neura/nn (file IO through `node:` builtins). Everything here may
// import `node:*`; nothing in the main entry (`src/index.ts`) may, so `@neura/nn` bundles for browsers.
// Add a Node-only helper as a file under `src/node/` and name it in this list.

export { loadMnist } from './node/loadMnist.js';
export { cleanStaleTemps, loadCheckpointFile, saveCheckpointFile, writeFileAtomic } from './node/checkpointFile.js';
export { fileDecisionCache } from './node/decisionCacheFile.js';
export { loadPretrainedDir, savePretrainedDir } from './node/pretrainedDir.js';
export { fileTuningCache, tuningCachePath } from './node/tuningCacheFile.js';
export { filePlanCache, planCachePath } from './node/planCacheFile.js';
export { loadOnnxFile } from './node/onnxFile.js';
export { loadTokenizer } from './node/loadTokenizer.js';
