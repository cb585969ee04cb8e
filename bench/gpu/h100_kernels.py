#!/usr/bin/env python3
# h100_kernels.py — measures the kernel classes culonx prices (GEMM, fused
# attention, memory-bound elementwise, FP8 GEMM) on one real GPU with PyTorch,
# at the GPU's own clocks (it never changes clocks or power limits; it only
# reads power and the SM clock through NVML while a kernel loops).
#
# Shapes: the per-GPU GEMMs of the transformer layers of the Megatron-Core
# r0.8.0 H100 weak-scaling table (bench/data/measured-public.csv: hidden
# 2048..18432, TP 1..8, seq 4096, microbatch 1 and 2), forward, data-gradient
# and weight-gradient layouts, plus a square/skinny size ladder for the
# efficiency curve; causal attention at head dim 64/128, seq 1024..16384.
# Output: CSV on stdout (one row per kernel; columns below). The committed
# result is bench/data/h100-kernels.csv (provenance in bench/data/README.md);
# bench/fit.c reads it. Run: python3 bench/gpu/h100_kernels.py > out.csv
import csv, statistics, sys, time
import torch
import torch.nn.functional as F

try:
    import pynvml
    pynvml.nvmlInit()
    NV = pynvml.nvmlDeviceGetHandleByIndex(0)
except Exception:  # power is optional
    NV = None

dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False
torch.manual_seed(0)
W = csv.writer(sys.stdout)
W.writerow(["kind", "name", "m", "n", "k", "batch", "dtype", "flops", "bytes",
            "time_us", "tflops", "gbps", "power_w", "sm_mhz"])


def timeit(fn, reps=20, trials=7):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(trials):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / reps)
    return statistics.median(ts)


def power(fn, seconds=1.0):
    """Mean board power (W) and SM clock (MHz) while fn loops for ~seconds."""
    if NV is None:
        return "", ""
    t_us = timeit(fn, reps=5, trials=3)
    n = max(1, int(0.05e6 / max(t_us, 1.0)))
    ps, cs = [], []
    end = time.time() + seconds + 0.3
    t0 = time.time()
    while time.time() < end:
        for _ in range(n):
            fn()
        if time.time() - t0 > 0.3:  # skip the ramp
            ps.append(pynvml.nvmlDeviceGetPowerUsage(NV) / 1000.0)
            cs.append(pynvml.nvmlDeviceGetClockInfo(NV, pynvml.NVML_CLOCK_SM))
    torch.cuda.synchronize()
    return f"{statistics.mean(ps):.1f}", f"{statistics.median(cs):.0f}"


def row(kind, name, m, n, k, batch, dtype, flops, nbytes, t_us, pw=("", "")):
    W.writerow([kind, name, m, n, k, batch, dtype, f"{flops:.6g}", f"{nbytes:.6g}",
                f"{t_us:.3f}", f"{flops / t_us / 1e6:.2f}" if flops else "",
                f"{nbytes / t_us / 1e3:.1f}" if nbytes else "", pw[0], pw[1]])
    sys.stdout.flush()


def gemm(name, m, n, k, layout, with_power=False, dtype=torch.bfloat16):
    # layout fwd: Y[m,n] = X[m,k] W[n,k]^T ; dgrad: dX[m,n] = dY[m,k] W[k,n];
    # wgrad: dW[m,n] = dY[k,m]^T X[k,n]
    if layout == "fwd":
        a = torch.randn(m, k, device=dev, dtype=dtype)
        b = torch.randn(n, k, device=dev, dtype=dtype).t()
    elif layout == "dgrad":
        a = torch.randn(m, k, device=dev, dtype=dtype)
        b = torch.randn(k, n, device=dev, dtype=dtype)
    else:
        a = torch.randn(k, m, device=dev, dtype=dtype).t()
        b = torch.randn(k, n, device=dev, dtype=dtype)
    fn = lambda: torch.mm(a, b)
    t = timeit(fn)
    pw = power(fn) if with_power else ("", "")
    row("gemm-" + layout, name, m, n, k, 1, "bf16", 2.0 * m * n * k,
        2.0 * (m * k + k * n + m * n), t, pw)


def gemm_fp8(name, m, n, k):
    try:
        a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                      out_dtype=torch.bfloat16)
        t = timeit(fn)
    except Exception as e:  # noqa
        print(f"# fp8 {name} {m}x{n}x{k}: {e}", file=sys.stderr)
        return
    row("gemm-fp8", name, m, n, k, 1, "fp8e4m3", 2.0 * m * n * k,
        1.0 * (m * k + k * n) + 2.0 * m * n, t)


def attention(b, heads, s, d, backend, with_power=False):
    from torch.nn.attention import sdpa_kernel, SDPBackend
    be = {"flash": SDPBackend.FLASH_ATTENTION,
          "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    q = torch.randn(b, heads, s, d, device=dev, dtype=torch.bfloat16,
                    requires_grad=True)
    k = torch.randn_like(q, requires_grad=True)
    v = torch.randn_like(q, requires_grad=True)
    try:
        with sdpa_kernel(be):
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            g = torch.randn_like(o)
            fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
            t_f = timeit(fwd, reps=10)

            def fb():
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                torch.autograd.backward(out, g)
            t_fb = timeit(fb, reps=5, trials=5)
            pw = power(fb) if with_power else ("", "")
    except Exception as e:  # noqa
        print(f"# attn {backend} {b}x{heads}x{s}x{d}: {e}", file=sys.stderr)
        return
    # causal: half of the s^2 score matrix; fwd 2 matmuls, bwd 5 (recompute)
    f_fwd = 4.0 * b * heads * s * s * d / 2
    io = 2.0 * b * heads * s * d * 4  # q, k, v, o in bf16
    row("attn-fwd", backend, s, s, d, b * heads, "bf16", f_fwd, io, t_f)
    row("attn-bwd", backend, s, s, d, b * heads, "bf16", 2.5 * f_fwd, 2 * io,
        t_fb - t_f, pw)


def membound(name, n_elem, hidden):
    x = torch.randn(n_elem // hidden, hidden, device=dev, dtype=torch.bfloat16)
    y = torch.randn_like(x)
    w = torch.ones(hidden, device=dev, dtype=torch.bfloat16)
    ops = {
        "copy": (lambda: x.clone(), 2),
        "add": (lambda: x + y, 3),
        "gelu": (lambda: F.gelu(x, approximate="tanh"), 2),
        "layernorm": (lambda: F.layer_norm(x, (hidden,), w, w), 2),
        "dropout-add": (lambda: F.dropout(x, 0.1) + y, 3),
    }
    for op, (fn, passes) in ops.items():
        t = timeit(fn)
        row("mem", op, n_elem // hidden, hidden, 0, 1, "bf16", 0,
            2.0 * n_elem * passes, t, power(fn) if op == "copy" and n_elem >= 1 << 26 else ("", ""))


props = torch.cuda.get_device_properties(0)
print(f"# {props.name} sms={props.multi_processor_count} torch={torch.__version__} "
      f"cuda={torch.version.cuda} cudnn={torch.backends.cudnn.version()}", file=sys.stderr)

# 1. Per-GPU layer GEMMs of the Megatron-Core H100 table (seq 4096).
table = [(2048, 1), (4096, 2), (6144, 4), (7168, 8), (8192, 8), (10240, 8),
         (12288, 8), (16384, 8), (18432, 8)]
for h, tp in table:
    for mb in (1, 2):
        T = 4096 * mb
        tag = f"h{h}-tp{tp}-mb{mb}"
        for gname, n, k in (("qkv", 3 * h // tp, h), ("proj", h, h // tp),
                            ("fc1", 4 * h // tp, h), ("fc2", h, 4 * h // tp)):
            gemm(f"{tag}-{gname}", T, n, k, "fwd", with_power=(gname == "fc1" and mb == 1))
            gemm(f"{tag}-{gname}", T, k, n, "dgrad")
            gemm(f"{tag}-{gname}", n, k, T, "wgrad")
        gemm(f"{tag}-head", T, 131072 // tp, h, "fwd")

# 2. Size ladder for the efficiency curve (square and token-skinny).
for s in (256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384):
    gemm(f"square-{s}", s, s, s, "fwd", with_power=(s in (1024, 4096, 16384)))
for T in (128, 256, 512, 1024, 2048):
    for h in (4096, 8192):
        gemm(f"skinny-T{T}-h{h}", T, 4 * h // 8, h, "fwd")

# 3. FP8 GEMMs at the same layer shapes (fwd layout).
for h, tp in table:
    T = 4096
    gemm_fp8(f"h{h}-tp{tp}-mb1-fc1", T, 4 * h // tp, h)
    gemm_fp8(f"h{h}-tp{tp}-mb1-qkv", T, 3 * h // tp, h)
for s in (1024, 4096, 8192, 16384):
    gemm_fp8(f"square-{s}", s, s, s)

# 4. Causal fused attention (per-GPU heads of the table's layers).
for backend in ("flash", "cudnn"):
    for d, heads in ((128, 16), (128, 8), (64, 16)):
        for s in (1024, 2048, 4096, 8192, 16384):
            attention(1, heads, s, d, backend, with_power=(s == 4096 and d == 128 and heads == 16))

# 5. Memory-bound elementwise at activation sizes (tokens x hidden).
for n_elem, hidden in ((4096 * 2048, 2048), (4096 * 8192, 8192), (8192 * 8192, 8192),
                       (4096 * 18432, 18432)):
    membound(f"{n_elem}", n_elem, hidden)

# 6. Idle power for reference.
if NV is not None:
    torch.cuda.synchronize()
    time.sleep(1.0)
    print(f"# idle power {pynvml.nvmlDeviceGetPowerUsage(NV)/1000.0:.1f} W, "
          f"sm {pynvml.nvmlDeviceGetClockInfo(NV, pynvml.NVML_CLOCK_SM)} MHz, "
          f"max sm {pynvml.nvmlDeviceGetMaxClockInfo(NV, pynvml.NVML_CLOCK_SM)} MHz, "
          f"power limit {pynvml.nvmlDeviceGetEnforcedPowerLimit(NV)/1000.0:.0f} W",
          file=sys.stderr)
