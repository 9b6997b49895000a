import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileDecisionCache } from '@neura/nn/node';
import { describe, expect, it } from 'vitest';

describe('fileDecisionCache', () => {
  it('keeps decisions across instances (a later process), and treats a missing or broken file as empty', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'neura-decisions-'));
    try {
      const path = join(dir, 'decisions.json');
      const a = fileDecisionCache(path);
      expect(await a.get('k1')).toBeUndefined();
      await a.set('k1', 'dispatch-heavy');
      await a.set('k2', 'model');
      const b = fileDecisionCache(path);
      expect(await b.get('k1')).toBe('dispatch-heavy');
      expect(await b.get('k2')).toBe('model');
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ k1: 'dispatch-heavy', k2: 'model' });
      await writeFile(path, '{ not json');
      expect(await fileDecisionCache(path).get('k1')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
