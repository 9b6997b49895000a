"""PyTorch reference for apps/bench: the same workloads as neura's bench, on the same machine, in the same
command. fp32 with TF32 off; each timing is the median over many steps after warm-up, with the GPU
synchronised (torch.cuda.synchronize) around each timed block. Prints one JSON document to stdout.

PyTorch at its strongest, so that ratios are honest: every training workload is timed eager (fused AdamW
where the optimizer is AdamW), with torch.compile, and with torch.compile mode="reduce-overhead" (CUDA
graphs); `best` names the fastest. Peak memory (torch.cuda.max_memory_allocated) is recorded per mode.
`kernels` times the matmul shapes of the GPT 6x384 step and causal SDPA forward+backward (B64 H6 T256 D64)
with CUDA events, the same shapes as neura's `--kernels` profile run.

`mixed` is the reference for neura's `precision: 'mixed'` (run only when named; `mixed-kernels` or `mixed-gpt` for
half of it): the GPT steps under torch.autocast (fp16 with a GradScaler, as PyTorch's AMP recipe has it, and bf16
without), eager / compiled / CUDA graphs as `--modes` allows, and the GPT step's matmul shapes in fp16 and bf16.

Arguments: groups to run (matmul mlp gpt kernels cnn mixed; default all but mixed), `--only=NAME,...` (workloads
whose names start with one of these), `--modes=eager,graphs,compiled` (modes besides eager; default all),
`--out=PATH`."""

import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda" if torch.cuda.is_available() else "cpu"


def timed(fn, warmup=20, iters=200, inner=1, warmup_s=1.0):
    """Median of `iters` synchronised samples, after `warmup` calls and at least `warmup_s` seconds of synchronised
    calls (the GPU's clocks follow its recent load; neura's bench warms up the same way)."""
    t0 = time.perf_counter()
    i = 0
    while i < warmup or time.perf_counter() - t0 < warmup_s:
        fn()
        if dev == "cuda":
            torch.cuda.synchronize()
        i += 1
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


def train_step(model, opt, x, y, mode):
    """One cross-entropy training step (logits as rows [-1, classes] against y flattened), as a function run
    eager, "compiled" (torch.compile) or "graphs" (torch.compile mode="reduce-overhead": CUDA graphs)."""

    def step():
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), y.view(-1))
        loss.backward()
        opt.step()
        return loss

    if mode == "compiled":
        return torch.compile(step)
    if mode == "graphs":
        return torch.compile(step, mode="reduce-overhead")
    return step


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

    return timed(train_step(model, opt, x, y, "compiled" if compiled else "eager"), warmup=30, iters=300)


class Block(torch.nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.ln2 = torch.nn.LayerNorm(width)
        self.fc = torch.nn.Linear(width, 4 * width)
        self.out = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, c))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Gpt(torch.nn.Module):
    """Pre-LN GPT (nanoGPT layout): token + position embeddings, blocks, final LN, LM head."""

    def __init__(self, layers, heads, width, context, vocab):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Embedding(context, width)
        self.blocks = torch.nn.Sequential(*[Block(width, heads) for _ in range(layers)])
        self.ln = torch.nn.LayerNorm(width)
        self.head = torch.nn.Linear(width, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        return self.head(self.ln(self.blocks(x)))


def gpt_step(layers, heads, width, context, batch, vocab, mode):
    """mode: eager (fused AdamW), compiled (torch.compile), graphs (torch.compile reduce-overhead)."""
    torch.manual_seed(0)
    model = Gpt(layers, heads, width, context, vocab).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01, fused=dev == "cuda")
    idx = torch.randint(0, vocab, (batch, context), device=dev)
    tgt = torch.randint(0, vocab, (batch, context), device=dev)

    fn = train_step(model, opt, idx, tgt, mode)
    if dev == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    r = timed(fn, warmup=10, iters=50)
    if dev == "cuda":
        r["maxMemoryAllocated"] = torch.cuda.max_memory_allocated()
    return r


def gpt_step_amp(layers, heads, width, context, batch, vocab, dtype, mode):
    """The GPT step under torch.autocast(dtype): fp32 weights and optimizer (fused AdamW), fp16/bf16 matmuls.
    fp16 scales the loss with a GradScaler (PyTorch's AMP recipe); bf16 needs none. mode as gpt_step's."""
    torch.manual_seed(0)
    model = Gpt(layers, heads, width, context, vocab).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01, fused=True)
    idx = torch.randint(0, vocab, (batch, context), device=dev)
    tgt = torch.randint(0, vocab, (batch, context), device=dev)
    scaler = torch.amp.GradScaler("cuda") if dtype == torch.float16 else None

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dtype):
            logits = model(idx)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), tgt.view(-1))
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        return loss

    fn = step if mode == "eager" else torch.compile(step, mode="reduce-overhead" if mode == "graphs" else None)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    r = timed(fn, warmup=10, iters=50)
    r["maxMemoryAllocated"] = torch.cuda.max_memory_allocated()
    return r


def matmul_kernels(dtype):
    """The GPT step's matmul shapes (and 4096³) in dtype, CUDA events (tensor cores for fp16/bf16)."""
    out = {}
    for name, m, n, k, ta, tb in GPT_MATMULS:
        a = torch.randn(*((k, m) if ta else (m, k)), device=dev, dtype=dtype)
        b = torch.randn(*((n, k) if tb else (k, n)), device=dev, dtype=dtype)
        fa = (lambda: a.t()) if ta else (lambda: a)
        fb = (lambda: b.t()) if tb else (lambda: b)
        r = event_ms(lambda: fa() @ fb())
        r["tflops"] = 2 * m * n * k / (r["medianMs"] * 1e-3) / 1e12
        out[f"matmul-{name}"] = r
    return out


def event_ms(fn, warmup=5, iters=20):
    """Median GPU time of fn in ms, CUDA events around each call."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(iters):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b))
    samples.sort()
    return {"medianMs": statistics.median(samples), "minMs": samples[0], "samples": len(samples)}


# (name, m, n, k, transA, transB): the same list as apps/bench/src/workloads/kernels.ts
GPT_MATMULS = [
    ("fwd-16384x384x384", 16384, 384, 384, False, False),
    ("fwd-fc-16384x1536x384", 16384, 1536, 384, False, False),
    ("fwd-proj-16384x384x1536", 16384, 384, 1536, False, False),
    ("dx-16384x384x384-Bt", 16384, 384, 384, False, True),
    ("dx-16384x1536x384-Bt", 16384, 1536, 384, False, True),
    ("dx-16384x384x1536-Bt", 16384, 384, 1536, False, True),
    ("dw-384x384x16384-At", 384, 384, 16384, True, False),
    ("dw-384x1536x16384-At", 384, 1536, 16384, True, False),
    ("dw-1536x384x16384-At", 1536, 384, 16384, True, False),
    ("square-4096", 4096, 4096, 4096, False, False),
]


def kernels():
    out = {}
    for name, m, n, k, ta, tb in GPT_MATMULS:
        a = torch.randn(*((k, m) if ta else (m, k)), device=dev)
        b = torch.randn(*((n, k) if tb else (k, n)), device=dev)
        fa = (lambda: a.t()) if ta else (lambda: a)
        fb = (lambda: b.t()) if tb else (lambda: b)
        r = event_ms(lambda: fa() @ fb())
        r["tflops"] = 2 * m * n * k / (r["medianMs"] * 1e-3) / 1e12
        out[f"matmul-{name}"] = r
    bsz, h, t, d = 64, 6, 256, 64
    q, k, v = (torch.randn(bsz, h, t, d, device=dev, requires_grad=True) for _ in range(3))
    g = torch.randn(bsz, h, t, d, device=dev)

    def attn():
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        torch.autograd.grad(o, (q, k, v), g)

    r = event_ms(attn)
    fwd = 4 * bsz * h * t * t / 2 * d
    r["tflops"] = 3.5 * fwd / (r["medianMs"] * 1e-3) / 1e12
    out["attention-fwd-bwd-b64h6t256d64-causal"] = r
    return out


class LeNet5(torch.nn.Module):
    """packages/nn/src/models/lenet.ts: ReLU + max-pool LeNet-5 for 28x28 inputs."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.features = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class BasicBlock(torch.nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        nn = torch.nn
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                           if stride != 1 or cin != cout else None)

    def forward(self, x):
        h = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(h + (self.downsample(x) if self.downsample is not None else x))


class SmallResNet(torch.nn.Module):
    """packages/nn/src/models/resnet.ts: 3x3 stem, one basic block per stage (16/32/64), GAP, linear."""

    def __init__(self, widths=(16, 32, 64)):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, widths[0], 3, 1, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(widths[0])
        blocks, c = [], widths[0]
        for s, w in enumerate(widths):
            blocks.append(BasicBlock(c, w, 2 if s > 0 else 1))
            c = w
        self.layers = torch.nn.Sequential(*blocks)
        self.fc = torch.nn.Linear(c, 10)

    def forward(self, x):
        h = self.layers(F.relu(self.bn1(self.conv1(x))))
        return self.fc(h.mean((2, 3)))


def cnn_step(model_name, batch, mode):
    """The CNN workloads of apps/bench/src/workloads/cnn.ts; mode as gpt_step's (Adam, fused on CUDA)."""
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True  # cuDNN's fastest algorithms for these shapes
    model = (LeNet5() if model_name == "lenet" else SmallResNet()).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=dev == "cuda")
    x = torch.randn(batch, 1, 28, 28, device=dev)
    y = torch.randint(0, 10, (batch,), device=dev)

    return timed(train_step(model, opt, x, y, mode), warmup=20, iters=100)


def main():
    def flag(name):
        return next((a[len(name) + 3 :] for a in sys.argv[1:] if a.startswith(f"--{name}=")), None)

    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out_path = flag("out")
    only = flag("only")
    only = only.split(",") if only else None
    modes = set((flag("modes") or "eager,graphs,compiled").split(","))
    which = set(args) or {"matmul", "mlp", "gpt", "kernels", "cnn"}

    def wanted(name):
        return only is None or any(name.startswith(o) for o in only)
    out = {
        "framework": "pytorch",
        "version": torch.__version__,
        "device": torch.cuda.get_device_name(0) if dev == "cuda" else "cpu",
        "tf32": False,
        "results": {},
    }
    res = out["results"]

    def save():  # with --out=PATH the document is rewritten after every workload (a timeout keeps what was done)
        if out_path:
            with open(out_path, "w") as f:
                json.dump(out, f)

    if "matmul" in which:
        for n in (1024, 2048, 4096):
            res[f"matmul-{n}"] = {"eager": matmul(n)}
            save()
    if "mlp" in which:
        workloads = {
            "mlp-784-128-10-b32-sgd": ([784, 128, 10], 32, "sgd"),
            "mlp-784-256-128-10-b1000-adam": ([784, 256, 128, 10], 1000, "adam"),
            "mlp-16-128-64-64-10-b16-sgd": ([16, 128, 64, 64, 10], 16, "sgd"),
        }
        for name, (sizes, batch, opt) in workloads.items():
            if not wanted(name):
                continue
            entry = {"eager": mlp_step(sizes, batch, opt, False)}
            try:
                if "compiled" in modes:
                    entry["compiled"] = mlp_step(sizes, batch, opt, True)
            except Exception as e:  # torch.compile can fail where no compiler toolchain exists
                entry["compiledError"] = str(e)[:300]
            res[name] = entry
            save()
    if "gpt" in which:
        gpts = {
            "gpt-2x128-ctx64-b16-adamw": (2, 4, 128, 64, 16, 65),
            "gpt-6x384-ctx256-b64-adamw": (6, 6, 384, 256, 64, 65),
        }
        for name, cfg in gpts.items():
            if not wanted(name):
                continue
            entry = {"eager": gpt_step(*cfg, "eager")}
            res[name] = entry
            save()
            for mode in [m for m in ("graphs", "compiled") if m in modes]:
                try:
                    entry[mode] = gpt_step(*cfg, mode)
                except Exception as e:  # torch.compile can fail where no compiler toolchain exists
                    entry[f"{mode}Error"] = str(e)[:300]
                save()
            timed_modes = [m for m in ("eager", "compiled", "graphs") if m in entry]
            entry["best"] = min(timed_modes, key=lambda m: entry[m]["medianMs"])
            res[name] = entry
            save()
    if "cnn" in which:
        for name, (model_name, batch) in {"cnn-lenet5-b64-adam": ("lenet", 64), "cnn-resnet8-b128-adam": ("resnet", 128)}.items():
            if not wanted(name):
                continue
            entry = {"eager": cnn_step(model_name, batch, "eager")}
            for mode in [m for m in ("compiled", "graphs") if m in modes]:
                try:
                    entry[mode] = cnn_step(model_name, batch, mode)
                except Exception as e:  # torch.compile can fail where no compiler toolchain exists
                    entry[f"{mode}Error"] = str(e)[:300]
            entry["best"] = min([m for m in ("eager", "compiled", "graphs") if m in entry], key=lambda m: entry[m]["medianMs"])
            res[name] = entry
            save()
    if "kernels" in which and dev == "cuda":
        res["kernels"] = kernels()
        save()
    if which & {"mixed", "mixed-kernels"} and dev == "cuda":
        for dtype, tag in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
            res[f"kernels-{tag}"] = matmul_kernels(dtype)
            save()
    if which & {"mixed", "mixed-gpt"} and dev == "cuda":
        gpts = {
            "gpt-2x128-ctx64-b16-adamw": (2, 4, 128, 64, 16, 65),
            "gpt-6x384-ctx256-b64-adamw": (6, 6, 384, 256, 64, 65),
        }
        for name, cfg in gpts.items():
            if not wanted(name):
                continue
            for dtype, tag in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
                entry = {}
                res[f"{name}-autocast-{tag}"] = entry
                for mode in ["eager"] + [m for m in ("graphs", "compiled") if m in modes]:
                    try:
                        entry[mode] = gpt_step_amp(*cfg, dtype, mode)
                    except Exception as e:  # CUDA graphs cannot capture the GradScaler's host sync; no toolchain, ...
                        entry[f"{mode}Error"] = str(e)[:300]
                    save()
                timed_modes = [m for m in ("eager", "compiled", "graphs") if m in entry]
                if timed_modes:
                    entry["best"] = min(timed_modes, key=lambda m: entry[m]["medianMs"])
                save()
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
