// The demo workers' resume: a checkpoint's bytes (from OPFS or handed in by the page) restored into the training
// session, after checking it is of this page's model, so a CNN checkpoint never loads into the MLP (or the GPT).

import { readCheckpoint, restoreCheckpoint, type TrainingSession } from '@neura/nn';

/** Restores `bytes` into `train` when it is `model`'s checkpoint (else throws naming both); returns its step. */
export async function restoreDemoCheckpoint(train: TrainingSession, bytes: Uint8Array, model: string): Promise<number> {
  const ckpt = readCheckpoint(bytes);
  if (ckpt.extra.model !== model) throw new Error(`the checkpoint is of model '${ckpt.extra.model}', not '${model}'`);
  await restoreCheckpoint(train, ckpt);
  return ckpt.step;
}
