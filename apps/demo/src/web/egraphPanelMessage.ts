// The e-graph panel as the demo's workers send it: the panel's HTML with the two kernel graphs as PNG images drawn
// in the worker (kernelGraphFigure), so the page's main thread parses a few kilobytes and decodes two images
// instead of laying out two SVGs of a hundred boxes (up to 140 ms in headless Chromium on a busy machine).

import type { Graph } from '@neura/ir';
import type { OptimizeReport } from '@neura/egraph';
import { egraphPanelHtml } from './egraphPanel.js';
import { kernelGraphFigure } from './kernelGraph.js';
import type { PanelMessage } from './mnistMessages.js';

/** The 'egraph' panel message of a step: `before` as built (`builtStep`), `after` compiled, with its report. */
export async function egraphPanelMessage(before: Graph, after: Graph, report: OptimizeReport | undefined): Promise<PanelMessage> {
  if (!report) return { panel: 'egraph', html: egraphPanelHtml(before, after, report) };
  const [b, a] = await Promise.all([kernelGraphFigure(before, 'before', 'before'), kernelGraphFigure(after, 'after', 'after')]);
  // PNG bytes, not Blobs: an ArrayBuffer is transferred as it is, a Blob goes through the browser's blob registry
  const images: Record<string, ArrayBuffer> = {};
  if (b.image) images.before = await b.image.arrayBuffer();
  if (a.image) images.after = await a.image.arrayBuffer();
  return { panel: 'egraph', html: egraphPanelHtml(before, after, report, 14, { before: b.html, after: a.html }), images };
}
