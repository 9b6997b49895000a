# PyTorch reference values for packages/autograd/test/gradConventions.test.ts and scanLse.test.ts:
#   /usr/bin/python3 packages/autograd/test/torch/gradConventions.py   (torch 1.13, CPU, float64)
# Each line prints an op's forward value and the gradient of sum(op(x)) (upstream ones); the tests inline them.
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
nan, inf = float('nan'), float('inf')


def value_and_grad(f, *xs):
    xs = [x.clone().requires_grad_(True) for x in xs]
    y = f(*xs)
    y.backward(torch.ones_like(y))
    return y.detach().tolist(), [x.grad.tolist() for x in xs]


x = torch.tensor([-2., -1., -0.5, 0., 0.5, 1., 2., nan])
print('clamp(x, -1, 1)', value_and_grad(lambda t: torch.clamp(t, -1, 1), x))
print('clamp(x, 1, -1)', value_and_grad(lambda t: torch.clamp(t, 1, -1), x))
print('clamp(x, min=0)', value_and_grad(lambda t: torch.clamp(t, min=0), x))
print('clamp(x, max=0)', value_and_grad(lambda t: torch.clamp(t, max=0), x))
print('clamp(int, 0, 2)', torch.clamp(torch.tensor([-3, 0, 1, 2, 5]), 0, 2).tolist())
print('clamp(int, 0.5, 2)', torch.clamp(torch.tensor([-3, 0, 1, 2, 5]), 0.5, 2).tolist())

r = torch.tensor([-1., 0., 1.])
print('relu', value_and_grad(torch.relu, r))
print('maximum(x, 0)', value_and_grad(lambda t: torch.maximum(t, torch.zeros_like(t)), r))
print('minimum(x, 0)', value_and_grad(lambda t: torch.minimum(t, torch.zeros_like(t)), r))
print('maximum(a, b)', value_and_grad(torch.maximum, torch.tensor([1., 2., 3.]), torch.tensor([1., 3., 2.])))
print('abs', value_and_grad(torch.abs, r))
print('sqrt', value_and_grad(torch.sqrt, torch.tensor([0., 4.])))

t = torch.tensor([[1., 3., 3., 2.], [5., 5., 5., 0.]])
print('amax(t, 1)', value_and_grad(lambda u: torch.amax(u, 1), t))
print('amin(-t, 1)', value_and_grad(lambda u: torch.amin(u, 1), -t))
print('max(t, 1).values', value_and_grad(lambda u: torch.max(u, 1).values, t))
print('max(t)', value_and_grad(torch.max, t))
print('max_pool2d ties', value_and_grad(lambda u: F.max_pool2d(u, 2), torch.tensor([[[[1., 1.], [0., 1.]]]])))

rows = torch.tensor([[1., 2., 3.], [-1000., -1000., 0.], [-inf, -inf, -inf], [inf, 0., 1.], [1000., 1000., 1000.]])
print('logsumexp(rows, 1)', value_and_grad(lambda u: torch.logsumexp(u, 1), rows))
print('logsumexp keepdim 0', torch.logsumexp(torch.tensor([[1., 2.], [3., 4.]]), 0, keepdim=True).tolist())
print('logsumexp (0, 2)', torch.logsumexp(torch.arange(12.).reshape(2, 3, 2) / 4, (0, 2)).tolist())

c = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
w = torch.tensor([[1., 10., 100.], [2., 20., 200.]])
print('cumsum(c, 1)', torch.cumsum(c, 1).tolist(), 'cumsum(c, 0)', torch.cumsum(c, 0).tolist())
print('grad sum(w * cumsum(c, 1))', value_and_grad(lambda u: (torch.cumsum(u, 1) * w).sum(), c)[1])
print('grad sum(w * cumsum(c, 0))', value_and_grad(lambda u: (torch.cumsum(u, 0) * w).sum(), c)[1])

u = torch.tensor([[[1., 4.], [4., 2.], [0., 4.]], [[nan, 1.], [2., 2.], [-inf, 2.]]])  # [2, 3, 2]
v, i = torch.max(u, 1)
print('max(u, 1)', v.tolist(), i.tolist(), value_and_grad(lambda z: torch.max(z, 1).values, u)[1])
v, i = torch.min(u, 1)
print('min(u, 1)', v.tolist(), i.tolist(), value_and_grad(lambda z: torch.min(z, 1).values, u)[1])
print('max(-inf row, 0)', torch.max(torch.tensor([-inf, -inf]), 0))
