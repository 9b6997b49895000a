import { DEFAULT_PASSES, RULE_SETS, graphToEGraph, egraphToGraph, tensorCost, costDefaults, TensorAnalysis, Runner, BackoffScheduler, DagExtractor, fromENode } from '@neura/egraph';
import { buildGptStep } from '@neura/nn';
import { GPT_CONFIGS } from '../src/egraphGpt.js';
const g = buildGptStep(GPT_CONFIGS['gpt-6x384x256-attention-op']);
const analysis = new TensorAnalysis({ maxPointwiseInputs: 7, maxBindingBytes: 128 * 1024 * 1024 });
const loaded = graphToEGraph(g, analysis);
const { egraph } = loaded;
let it = 0;
for (const p of DEFAULT_PASSES) {
  const runner = new Runner(egraph, { iterLimit: Math.min(p.iterLimit ?? 99, 40 - it), nodeLimit: 50000, scheduler: new BackoffScheduler({ matchLimit: Math.max(1000, 8 * g.nodes.length) }) });
  for (const r of loaded.roots) runner.addRoot(r);
  it += runner.run(p.ruleSets.flatMap((s) => RULE_SETS[s])).iterations;
}
const cost = tensorCost(egraph, costDefaults());
const ex = new DagExtractor(egraph, cost, { improvePasses: 2, maxEvaluations: 20000 }).extract(loaded.roots);
analysis.settle(egraph);
const { graph: out, classOfNode } = egraphToGraph(loaded, ex, g);
const adds = out.live().filter((id) => out.nodes[id].op === 'add' && out.nodes[id].inputs.every((i) => out.nodes[i].op === 'rowwise'));
const target = process.env.NEG ? out.live().find((id) => out.nodes[id].op === 'neg')! : out.live().find((id) => out.nodes[id].op === 'pointwise' && out.nodes[id].inputs.includes(adds[0]))!;
console.log('adds', adds.length, 'add', adds[0], 'target', target);
// find the add node feeding the target pointwise in `out` by structure: print class alternatives of target
const cls = egraph.find(classOfNode.get(target)!);
const fmt = (n: any) => { const ir = fromENode(n); return `${n.op} kids=${n.children.map((c: number) => egraph.find(c)).join(',')} ${n.op === 'pointwise' || n.op === 'rowwise' ? JSON.stringify(ir.attrs).slice(0, 160) : ''} cost=${cost.nodeCost(n, cls).toFixed(1)}`; };
console.log('target', target, out.nodes[target].op, 'class', cls, 'chosen', fmt(ex.choices.get(cls)));
for (const n of egraph.eclass(cls).nodes) console.log('  alt', fmt(n));
for (const c of ex.choices.get(cls)!.children) { const cc = egraph.find(c); console.log(' child', cc, egraph.eclass(cc).data.shape, 'chosen', fmt(ex.choices.get(cc))); }
