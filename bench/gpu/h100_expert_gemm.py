#!/usr/bin/env python3
# h100_expert_gemm.py — times the expert GEMMs of mixture-of-experts layers on
# one real GPU with PyTorch, at small token counts per expert, where the GEMM
# size curve of hw/perf.c matters. Each measurement is captured in a CUDA
# graph and replayed, so the time is the kernels' own, not PyTorch's CPU
# issue rate (~15 us a call, which bounds eager timing of small GEMMs; see
# bench/data/README.md). It never changes clocks or power limits.
#
# Shapes (per expert, bf16): the gate/up (h -> 2*ffn for SwiGLU) and down
# (ffn -> h) GEMMs of Mixtral 8x7B (h 4096, ffn 14336), DeepSeek-V3 (h 7168,
# ffn 2048), Qwen3-30B-A3B (h 2048, ffn 768) and gpt-oss-120b (h 2880, ffn
# 2880); tokens per expert 16..8192. "single": one expert's GEMM; "grouped":
# all E experts of one layer with the same token count, as torch._grouped_mm
# (one grouped kernel; CUTLASS on Hopper) where available, else E GEMMs in
# one graph ("loop"). Also a small dense GEMV-like ladder (decode shapes).
# Output: CSV on stdout, committed as bench/data/h100-expert-gemm.csv.
import csv, statistics, sys
import torch

dev = torch.device("cuda")
torch.manual_seed(0)
W = csv.writer(sys.stdout)
W.writerow(["kind", "model", "tokens", "n", "k", "experts", "flops", "bytes", "time_us",
            "tflops"])


def graph_time(fn, reps=20, trials=7):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(trials):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / reps)
    return statistics.median(ts)


def emit(kind, model, T, n, k, E, t):
    fl = 2.0 * T * n * k * E
    by = 2.0 * (T * k + k * n + T * n) * E
    W.writerow([kind, model, T, n, k, E, f"{fl:.6g}", f"{by:.6g}", f"{t:.3f}",
                f"{fl / t / 1e6:.2f}"])
    sys.stdout.flush()


has_grouped = hasattr(torch, "_grouped_mm")
print(f"# {torch.cuda.get_device_name(0)} torch={torch.__version__} grouped_mm={has_grouped}",
      file=sys.stderr)
models = [("mixtral-8x7b", 4096, 14336, 8), ("deepseek-v3", 7168, 2048, 256 // 8),
          ("qwen3-30b-a3b", 2048, 768, 128 // 8), ("gpt-oss-120b", 2880, 2880, 128 // 8)]
# experts per GPU: all of Mixtral's 8; the others at ep 8 (256/8, 128/8)
for name, h, ffn, E in models:
    for (gname, n, k) in (("up", 2 * ffn, h), ("down", h, ffn)):
        w = torch.randn(E, k, n, device=dev, dtype=torch.bfloat16)
        for T in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192):
            x = torch.randn(T, k, device=dev, dtype=torch.bfloat16)
            emit("single-" + gname, name, T, n, k, 1, graph_time(lambda: torch.mm(x, w[0])))
            xs = torch.randn(E * T, k, device=dev, dtype=torch.bfloat16)
            done = False
            if has_grouped:
                offs = torch.arange(T, E * T + 1, T, device=dev, dtype=torch.int32)
                try:
                    wt = w.transpose(-2, -1).contiguous().transpose(-2, -1)
                    t = graph_time(lambda: torch._grouped_mm(xs, wt, offs=offs,
                                                             out_dtype=torch.bfloat16))
                    emit("grouped-" + gname, name, T, n, k, E, t)
                    done = True
                except Exception as e:  # noqa
                    print(f"# grouped_mm {name} {gname} T={T}: {e}", file=sys.stderr)
            if not done:
                xv = xs.view(E, T, k)
                t = graph_time(lambda: [torch.mm(xv[i], w[i]) for i in range(E)], reps=5)
                emit("loop-" + gname, name, T, n, k, E, t)
        del w
# decode-like dense GEMMs (tokens 1..64) on 70B-class TP-8 shards
for (n, k) in ((1280, 8192), (8192, 1024), (3584, 8192), (8192, 3584), (16384, 16384)):
    w = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
    for T in (1, 4, 16, 64, 256):
        x = torch.randn(T, k, device=dev, dtype=torch.bfloat16)
        emit("dense-small", "tp8-shard", T, n, k, 1, graph_time(lambda: torch.mm(x, w)))
