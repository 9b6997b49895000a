// The demo's per-kernel timeline panel for one warm training step, profiled in the worker that trains (the step
// trains too). Without timestamp-query the panel says how to get it instead. Shared by the MNIST and GPT workers.

import type { TrainingSession } from '@neura/nn';
import { ProfilerError } from '@neura/runtime-webgpu';
import { esc } from './html.js';
import { timelinePanelHtml } from './timelinePanel.js';

/** Profiles one step of `session` on `feeds` and returns the timeline panel's HTML (or why there is none). */
export async function profiledStepHtml(session: TrainingSession['session'], feeds: Record<string, Float32Array | Int32Array>): Promise<string> {
  try {
    const profile = await session.profile(feeds);
    return timelinePanelHtml(profile.timings, profile.summary());
  } catch (e) {
    if (!(e instanceof ProfilerError)) throw e;
    return `<p class="muted">No per-kernel timeline: ${esc(e.message)}. In Chromium, start it with --enable-dawn-features=allow_unsafe_apis (or --enable-webgpu-developer-features) to get timestamps.</p>`;
  }
}
