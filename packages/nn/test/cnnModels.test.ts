// LeNet-5 and the small ResNet from the public API: PyTorch-style leaf names, parameter counts equal to
// torch's for the same architectures, output shapes, and eval-mode forward values on the interpreter.

import { Graph, interpret, tensor } from '@neura/ir';
import { LeNet5, SmallResNet } from '@neura/nn';
import { describe, expect, it } from 'vitest';

describe('LeNet5', () => {
  it('has torch.nn.Sequential names and the 61 706 parameters of LeNet-5 for 10 classes', () => {
    const m = new LeNet5();
    expect(m.namedParameters().map(([n]) => n)).toEqual([
      'features.0.weight',
      'features.0.bias',
      'features.3.weight',
      'features.3.bias',
      'classifier.0.weight',
      'classifier.0.bias',
      'classifier.2.weight',
      'classifier.2.bias',
      'classifier.4.weight',
      'classifier.4.bias',
    ]);
    expect(m.parameterCount()).toBe(61706);
    const g = new Graph();
    expect(m.forward(g, g.input('x', [3, 1, 28, 28])).shape).toEqual([3, 10]);
  });
});

describe('SmallResNet', () => {
  it('names its leaves as torchvision does and counts parameters as torch would', () => {
    const m = new SmallResNet();
    const names = [...m.stateDictSpec().keys()];
    expect(names.slice(0, 7)).toEqual(['conv1.weight', 'bn1.weight', 'bn1.bias', 'layer1.0.conv1.weight', 'layer1.0.bn1.weight', 'layer1.0.bn1.bias', 'layer1.0.conv2.weight']);
    expect(names).toContain('layer2.0.downsample.0.weight');
    expect(names).toContain('layer3.0.downsample.1.running_var');
    expect(names).not.toContain('layer1.0.downsample.0.weight'); // identity shortcut in the first stage
    // torch: sum(p.numel()) of the same model (3×3 convs without bias, BN affine, 1×1 projections, fc 64→10)
    const conv = (i: number, o: number, k: number) => i * o * k * k;
    const want =
      conv(1, 16, 3) + 32 + (conv(16, 16, 3) * 2 + 64) + (conv(16, 32, 3) + conv(32, 32, 3) + 128 + conv(16, 32, 1) + 64) + (conv(32, 64, 3) + conv(64, 64, 3) + 256 + conv(32, 64, 1) + 128) + 650;
    expect(m.parameterCount()).toBe(want);
  });

  it('runs in eval mode on the interpreter: finite logits [N, 10], and equal rows for equal images', () => {
    const m = new SmallResNet().eval();
    const g = new Graph();
    g.output('y', m.forward(g, g.input('x', [2, 1, 28, 28])));
    const img = Array.from({ length: 784 }, (_, i) => Math.sin(i / 7));
    const y = interpret(g, { x: tensor([2, 1, 28, 28], [...img, ...img]) }, m.initialState(), 'f32').outputs.y;
    expect(y.shape).toEqual([2, 10]);
    expect(Array.from(y.data).every(Number.isFinite)).toBe(true);
    expect(y.data.slice(10)).toEqual(y.data.slice(0, 10));
    expect(new Set(Array.from(y.data.slice(0, 10))).size).toBeGreaterThan(1);
  });
});
