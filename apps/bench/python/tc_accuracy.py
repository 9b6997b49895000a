#!/usr/bin/env python3
# How far cuBLAS's fp16 tensor-core product (f32 accumulation) is from the exact product of the same f16 operands:
# Aᵀ·B with K = 2048 (the sgm check's 'partials Aᵀ ×8 whole blocks' shape) and 4096³-like long K, split in chunks.
import json, torch
torch.manual_seed(0)
out = {"device": torch.cuda.get_device_name()}
for (k, m, n) in [(2048, 64, 128), (256, 64, 128), (16384, 384, 384)]:
    a = (torch.rand(k, m, device="cuda") * 2 - 1).half()
    b = (torch.rand(k, n, device="cuda") * 2 - 1).half()
    exact = a.double().t() @ b.double()
    row = {}
    try:
        y = torch.mm(a.t(), b, out_dtype=torch.float32)
        row["f32_out"] = {"maxErr": float((y.double() - exact).abs().max()), "maxAbs": float(exact.abs().max()), "meanSignedErr": float((y.double() - exact).mean())}
    except Exception as e:
        row["f32_out"] = {"error": str(e)[:200]}
    y16 = torch.mm(a.t(), b)
    row["f16_out"] = {"maxErr": float((y16.double() - exact).abs().max()), "maxAbs": float(exact.abs().max())}
    yf = a.float().t() @ b.float()
    row["fp32_cuda_cores"] = {"maxErr": float((yf.double() - exact).abs().max())}
    out[f"{k}x{m}x{n}"] = row
print(json.dumps(out, indent=1))
