import { optimize } from '@neura/egraph';
import { isAliasOp, isLeafOp } from '@neura/ir';
import { buildGptStep } from '@neura/nn';
import { generateKernel, DEFAULT_CAPS } from '@neura/wgsl-kernels';
import { GPT_CONFIGS } from '../src/egraphGpt.js';
const g0 = buildGptStep(GPT_CONFIGS['gpt-6x384x256-attention-op']);
const t0 = performance.now();
const r = optimize(g0);
const g = r.graph;
console.error('optimize ms', performance.now() - t0, 'cost dispatches', r.report.dispatchesAfter, 'bytes', r.report.bytesAfter);
const caps = { ...DEFAULT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024, maxStorageBuffersPerShaderStage: 10, maxStorageBufferBindingSize: 2 ** 31, maxComputeWorkgroupStorageSize: 32768 };
const hist = new Map<string, { n: number; d: number }>();
let total = 0;
const lines: string[] = [];
for (const id of g.live()) {
  const n = g.nodes[id];
  if (isLeafOp(n.op) || isAliasOp(n.op) || n.op === 'pick') continue;
  const inputs = n.inputs.map((i) => ({ shape: g.nodes[i].shape, dtype: g.nodes[i].dtype }));
  let d = 1;
  try { d = generateKernel({ node: n, inputs, arenas: n.op === 'pointwiseMultiTensor' } as never, caps).dispatches.length; } catch (e) { d = -1; }
  total += d;
  let key = n.op;
  if (n.op === 'pointwise' || n.op === 'pointwiseReduce' || n.op === 'pointwiseMulti') key += ' ' + JSON.stringify((n.attrs as any).expr ?? (n.attrs as any).exprs ?? '').slice(0, 80);
  if (n.op === 'sum' || n.op === 'mean') key += ' axes ' + JSON.stringify((n.attrs as any).axes);
  const h = hist.get(key) ?? { n: 0, d: 0 };
  h.n++; h.d += d; hist.set(key, h);
  lines.push(`${id} ${n.op} d=${d} ${JSON.stringify(n.shape)} <- ${n.inputs.map((i) => g.nodes[i].op + JSON.stringify(g.nodes[i].shape)).join(', ')} ${n.op.startsWith('pointwise') || n.op==='sum' ? JSON.stringify(n.attrs).slice(0, 200) : ''}`);
}
console.log('runtime-plan dispatches', total);
for (const [k, v] of [...hist].sort((a, b) => b[1].d - a[1].d)) console.log(v.n, v.d, k);
if (process.argv[2]) { const fs = await import('node:fs'); fs.writeFileSync(process.argv[2], lines.join('\n')); }
const show = (id: number, depth: number, ind = ''): void => {
  const n = g.nodes[id];
  console.log(ind + id + ' ' + n.op + ' ' + JSON.stringify(n.shape) + ' ' + (['pointwise','rowwise','pointwiseReduce','sum'].includes(n.op) ? JSON.stringify(n.attrs).slice(0, 400) : ''));
  if (depth > 0) for (const i of n.inputs) show(i, depth - 1, ind + '  ');
};
const consumers = (id: number) => g.live().filter((c) => g.nodes[c].inputs.includes(id));
for (const id of (process.env.SHOW ?? '').split(',').filter(Boolean).map(Number)) { show(id, 2); console.log('consumers', consumers(id).map((c) => c + ' ' + g.nodes[c].op)); }
