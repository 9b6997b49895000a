// The one debug knob: NEURA_DEBUG=0..3 (1: e-graph report, 2: + rules per fused kernel and WGSL, 3: + DOT).
// Read from the environment in Node and from `globalThis.NEURA_DEBUG` in browsers.

/** The current debug level (0 when unset). */
export function debugLevel(): number {
  const g = globalThis as { NEURA_DEBUG?: unknown; process?: { env?: Record<string, string | undefined> } };
  const raw = g.NEURA_DEBUG ?? g.process?.env?.NEURA_DEBUG;
  const n = Number(raw ?? 0);
  return Number.isFinite(n) ? n : 0;
}
