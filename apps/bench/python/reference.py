"""PyTorch reference for apps/bench: the same workloads as neura's bench, on the same machine, in the same
command. fp32 with TF32 off; each timing is the median over many steps after warm-up, with the GPU
synchronised (torch.cuda.synchronize) around each timed block. Prints one JSON document to stdout."""

import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda" if torch.cuda.is_available() else "cpu"


def timed(fn, warmup=20, iters=200, inner=1):
    for _ in range(warmup):
        fn()
    if dev == "cuda":
        torch.cuda.synchronize()
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        if dev == "cuda":
            torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) * 1000 / inner)
    samples.sort()
    return {
        "medianMs": statistics.median(samples),
        "p10Ms": samples[len(samples) // 10],
        "p90Ms": samples[(len(samples) * 9) // 10],
        "samples": len(samples),
    }


def matmul(n):
    a = torch.randn(n, n, device=dev)
    b = torch.randn(n, n, device=dev)
    r = timed(lambda: a @ b, warmup=5, iters=30, inner=5)
    r["tflops"] = 2 * n**3 / (r["medianMs"] * 1e-3) / 1e12
    return r


def mlp_step(sizes, batch, opt_name, compiled):
    torch.manual_seed(0)
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i + 2 < len(sizes):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(dev)
    opt = (
        torch.optim.SGD(model.parameters(), lr=0.01)
        if opt_name == "sgd"
        else torch.optim.Adam(model.parameters(), lr=1e-3)
    )
    x = torch.randn(batch, sizes[0], device=dev)
    y = torch.randint(0, sizes[-1], (batch,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    fn = step
    if compiled:
        fn = torch.compile(step)
    r = timed(fn, warmup=30, iters=300)
    return r


def main():
    which = set(sys.argv[1:]) or {"matmul", "mlp"}
    out = {
        "framework": "pytorch",
        "version": torch.__version__,
        "device": torch.cuda.get_device_name(0) if dev == "cuda" else "cpu",
        "tf32": False,
        "results": {},
    }
    res = out["results"]
    if "matmul" in which:
        for n in (1024, 2048, 4096):
            res[f"matmul-{n}"] = {"eager": matmul(n)}
    if "mlp" in which:
        workloads = {
            "mlp-784-128-10-b32-sgd": ([784, 128, 10], 32, "sgd"),
            "mlp-784-256-128-10-b1000-adam": ([784, 256, 128, 10], 1000, "adam"),
            "mlp-16-128-64-64-10-b16-sgd": ([16, 128, 64, 64, 10], 16, "sgd"),
        }
        for name, (sizes, batch, opt) in workloads.items():
            entry = {"eager": mlp_step(sizes, batch, opt, False)}
            try:
                entry["compiled"] = mlp_step(sizes, batch, opt, True)
            except Exception as e:  # torch.compile can fail where no compiler toolchain exists
                entry["compiledError"] = str(e)[:300]
            res[name] = entry
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
