// Class-weighted crossEntropy (PyTorch's `weight`) with ignored rows and label smoothing, every reduction:
// forward values and gradients against PyTorch 1.13 in float64, plus finite differences in the weight.
import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { checkGradients, grad } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

// PyTorch 1.13, float64 (/usr/bin/python3):
//   x = tensor([((i*37) % 23 - 11) / 8 for i in range(24)]).reshape(6, 4); y = [2, 0, -100, 3, 1, 2]
//   w = [0.5, 2, 1.5, 0.25]; u = [1, -2, 3, 0.5, -1, 2]
//   l = F.cross_entropy(x, y, weight=w, label_smoothing=eps, reduction=red, ignore_index=-100)
//   ((l * u).sum() if red == 'none' else l).backward()  →  loss = l, grad = x.grad
const TORCH: { reduction: 'mean' | 'sum' | 'none'; eps: number; loss: number[]; grad: number[] }[] = [{"reduction": "mean", "eps": 0, "loss": [2.1169043347559793], "grad": [0.013465026624409524, 0.07748587824531546, -0.23571358365962097, 0.144762678789896, -0.06406978802068798, 0.007430234571465877, 0.04275804774830783, 0.01388150570091427, 0.0, 0.0, 0.0, 0.0, 0.004710854271839472, 0.02710909459900046, 0.008801034449416413, -0.04062098332025634, 0.09154693487376979, -0.3181051486706582, 0.17103219099323133, 0.05552602280365708, 0.028265125631036836, 0.16265456759400276, -0.2080633585208928, 0.017143665295853237]}, {"reduction": "mean", "eps": 0.2, "loss": [1.9722364480087902], "grad": [0.008331740651029115, 0.055574564333179303, -0.1980505811345489, 0.1341442761503405, -0.04587679467316887, -0.008289266997780386, 0.039335130230807536, 0.014830931440141722, 0.0, 0.0, 0.0, 0.0, 0.003425083461578609, 0.027338701740524673, 0.0014782285806675163, -0.03224201378277079, 0.07861658364239733, -0.2687175735914797, 0.14195444482674632, 0.04814654512233596, 0.022268500548936504, 0.13577508013652653, -0.1720132857955799, 0.013969705110116873]}, {"reduction": "sum", "eps": 0, "loss": [12.17219992484688], "grad": [0.07742390309035477, 0.44554379991056386, -1.3553531060428206, 0.832385403041902, -0.3684012811189559, 0.042723848785928796, 0.24585877455277005, 0.07981865778025705, 0.0, 0.0, 0.0, 0.0, 0.02708741206307697, 0.15587729394425265, 0.05060594808414438, -0.23357065409147398, 0.5263948755241763, -1.829104604856285, 0.9834350982110802, 0.3192746311210282, 0.16252447237846182, 0.9352637636655159, -1.1963643114951337, 0.09857607545115613]}, {"reduction": "sum", "eps": 0.2, "loss": [11.340359576050545], "grad": [0.04790750874341741, 0.319553744915781, -1.138790841523656, 0.7713295878644578, -0.26379156937072107, -0.04766328523723723, 0.22617699882714332, 0.0852778557808149, 0.0, 0.0, 0.0, 0.0, 0.019694229904077, 0.1571975350080169, 0.008499814338838218, -0.18539157925093208, 0.45204535594378475, -1.5451260481510083, 0.8162380577537914, 0.2768426344534318, 0.12804387815638488, 0.7807067107850275, -0.9890763933245844, 0.08032580438317202]}, {"reduction": "none", "eps": 0, "loss": [3.5083872430719087, 0.6674254072624167, 0.0, 0.6805979493518414, 4.919701629049667, 2.396087696111048], "grad": [0.07742390309035477, 0.44554379991056386, -1.3553531060428206, 0.832385403041902, 0.7368025622379119, -0.08544769757185759, -0.4917175491055401, -0.1596373155605141, 0.0, 0.0, 0.0, 0.0, 0.013543706031538484, 0.07793864697212632, 0.02530297404207219, -0.11678532704573699, -0.5263948755241763, 1.829104604856285, -0.9834350982110802, -0.3192746311210282, 0.32504894475692364, 1.8705275273310318, -2.3927286229902673, 0.19715215090231225]}, {"reduction": "none", "eps": 0.2, "loss": [3.184981320559381, 0.8894711238964605, 0.0, 0.8011116164305383, 4.2912921013262615, 2.1735034138379037], "grad": [0.04790750874341741, 0.319553744915781, -1.138790841523656, 0.7713295878644578, 0.5275831387414421, 0.09532657047447446, -0.45235399765428663, -0.1705557115616298, 0.0, 0.0, 0.0, 0.0, 0.0098471149520385, 0.07859876750400845, 0.004249907169419109, -0.09269578962546604, -0.45204535594378475, 1.5451260481510083, -0.8162380577537914, -0.2768426344534318, 0.25608775631276975, 1.561413421570055, -1.9781527866491688, 0.16065160876634405]}];

const X = Array.from({ length: 24 }, (_, i) => (((i * 37) % 23) - 11) / 8);
const LABELS = tensor([6], [2, 0, -100, 3, 1, 2], 'i32');
const WEIGHT = tensor([4], [0.5, 2, 1.5, 0.25]);
const U = tensor([6], [1, -2, 3, 0.5, -1, 2]);

describe('crossEntropy with class weights', () => {
  for (const t of TORCH)
    it(`matches PyTorch with weight, ignoreIndex -100, labelSmoothing ${t.eps}, reduction ${t.reduction}`, () => {
      const g = new Graph();
      const x = g.param('x', [6, 4]);
      const w = g.input('w', [4]);
      const l = g.output('l', g.crossEntropy(x, g.input('labels', [6], 'i32'), { weight: w, ignoreIndex: -100, labelSmoothing: t.eps, reduction: t.reduction }));
      const scalar = t.reduction === 'none' ? g.sum(g.mul(l, g.input('u', [6]))) : l;
      g.output('dx', grad(g, scalar, [x])[0]);
      const r = interpret(g, { labels: LABELS, w: WEIGHT, u: U }, { x: tensor([6, 4], X) }, 'f64');
      expect(r.outputs.l.shape).toEqual(t.reduction === 'none' ? [6] : []);
      expect(r.outputs.l.data).toBeAllclose(t.loss, { rtol: 1e-12, atol: 1e-14 });
      expect(r.outputs.dx.data).toBeAllclose(t.grad, { rtol: 1e-12, atol: 1e-14 });
    });

  it('differentiates in the logits and in the weight (finite differences)', () => {
    const report = checkGradients(
      (g) => {
        const w = g.add(g.mul(g.param('w', [3]), 0.5), 1); // positive weights
        return g.crossEntropy(g.mul(g.param('x', [4, 3]), 1.5), g.input('labels', [4], 'i32'), { weight: w, labelSmoothing: 0.1 });
      },
      { feeds: { labels: tensor([4], [2, 0, 1, 2], 'i32') } },
    );
    expectGradientsMatch(report);
  });

  it("gives per-row losses shaped as the labels with reduction 'none' (no weight)", () => {
    const g = new Graph();
    const x = g.input('x', [2, 3, 4]);
    const labels = g.input('labels', [2, 3], 'i32');
    g.output('l', g.crossEntropy(x, labels, 'none'));
    g.output('m', g.crossEntropy(x, labels));
    const r = interpret(g, { x: tensor([2, 3, 4], X), labels: tensor([2, 3], [2, 0, 1, 3, 1, 2], 'i32') }, {}, 'f64');
    expect(r.outputs.l.shape).toEqual([2, 3]);
    expect(r.outputs.m.data[0]).toBeCloseTo(Array.from(r.outputs.l.data).reduce((s, v) => s + v, 0) / 6, 12);
  });

  it('keeps the unweighted loss as nll(logSoftmax), the pattern the e-graph fuses into one kernel', () => {
    const g = new Graph();
    const l = g.crossEntropy(g.input('x', [6, 4]), g.input('labels', [6], 'i32'));
    expect(l.op).toBe('nll');
    expect(g.get(l.inputs[0]).op).toBe('logSoftmax');
  });

  it('refuses a weight whose shape is not [C], naming both shapes', () => {
    const g = new Graph();
    const x = g.input('x', [6, 4]);
    const labels = g.input('labels', [6], 'i32');
    expect(() => g.crossEntropy(x, labels, { weight: g.input('w', [3]) })).toThrow(/crossEntropy: weight \[3\]:f32 does not match the 4 classes of logits \[6, 4\] \(want weight \[4\]:f32\)/);
    expect(() => g.crossEntropy(x, labels, { weight: g.input('w2', [1, 4]) })).toThrow(/weight \[1, 4\]/);
    expect(() => g.crossEntropy(x, labels, { weight: g.input('w3', [4], 'i32') })).toThrow(/weight \[4\]:i32/);
  });
});
