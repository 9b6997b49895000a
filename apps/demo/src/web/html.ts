// Tiny HTML helpers for the demo's panels: escaping and number formats. Pure; no DOM.

/** Escapes text for HTML element content and attribute values. */
export const esc = (s: unknown): string =>
  String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Bytes as B / KiB / MiB / GiB. */
export function bytes(n: number): string {
  const u = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(n >= 100 ? 0 : 1)} ${u[i]}`;
}

/** A duration in ms with a sensible unit (µs below 1 ms). */
export const ms = (v: number): string => (v < 1 ? `${(v * 1000).toFixed(0)} µs` : `${v.toFixed(v < 10 ? 2 : 1)} ms`);
