#!/usr/bin/env python3
# h100_gpt_step.py — times whole GPT training micro-steps (forward + backward
# of a transformer stack with embedding, output head and cross entropy) on one
# real GPU with PyTorch, and reads board power and SM clock through NVML while
# they loop. It never changes clocks or power limits.
#
# Why: bench/data/h100-kernels.csv times kernels one by one; this times the
# layer stack as a framework runs it (kernel sequence, launch gaps, memory-bound
# ops between GEMMs), so that culonx's single-GPU compute model (no network) can
# be checked on H100 independently of any cluster's network assumptions.
#
# Model: Megatron GPT layer (pre-LayerNorm, fused QKV with bias, causal
# attention through cuDNN scaled-dot-product attention, output projection,
# residual, LayerNorm, 4h MLP with tanh GELU, residual), bf16 weights and
# activations, no dropout (the H100 table does not state it), vocabulary
# 131072 output head untied, cross entropy in fp32. No
# recomputation (FlashAttention-style attention stores no s^2 scores, which is
# what Megatron's selective recompute would have removed). "eager" runs the
# PyTorch ops as written (LayerNorm, GELU, adds unfused); "compiled" wraps each
# layer in torch.compile (Inductor fuses the elementwise ops, as Megatron /
# Transformer Engine fuse them) when the machine can compile.
# Output: CSV on stdout, one row per (shape, microbatch, mode). The committed
# result is bench/data/h100-gpt-step.csv (provenance in bench/data/README.md).
# Run: python3 bench/gpu/h100_gpt_step.py [MODES [tp]] > out.csv   (MODES: comma list of
# eager, compiled, eager-drop, compiled-drop; "tp": the per-rank shapes of the
# tensor-parallel rows instead: each GEMM's tp-sliced width, no communication)
import csv, statistics, sys, threading, time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

try:
    import pynvml
    pynvml.nvmlInit()
    NV = pynvml.nvmlDeviceGetHandleByIndex(0)
except Exception:
    NV = None

dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False
torch.manual_seed(0)
torch._dynamo.config.cache_size_limit = 64


class Layer(nn.Module):
    def __init__(self, h, a, p, tp):
        super().__init__()
        self.a, self.p, self.d = a // tp, p, h // a  # heads on this rank, head dim
        self.ln1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h // tp)
        self.proj = nn.Linear(h // tp, h)
        self.ln2 = nn.LayerNorm(h)
        self.fc1 = nn.Linear(h, 4 * h // tp)
        self.fc2 = nn.Linear(4 * h // tp, h)

    def forward(self, x):  # x: [b, s, h]
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.a, self.d).unbind(2)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION]):
            o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                               v.transpose(1, 2), is_causal=True,
                                               dropout_p=self.p)
        x = x + F.dropout(self.proj(o.transpose(1, 2).reshape(b, s, self.a * self.d)), self.p)
        y = self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))
        return x + F.dropout(y, self.p)


class GPT(nn.Module):
    def __init__(self, L, h, a, V, compiled, p, tp):
        super().__init__()
        self.emb = nn.Embedding(V // tp, h)
        self.layers = nn.ModuleList(Layer(h, a, p, tp) for _ in range(L))
        if compiled:
            self.layers = nn.ModuleList(torch.compile(m) for m in self.layers)
        self.lnf = nn.LayerNorm(h)
        self.head = nn.Linear(h, V // tp, bias=False)

    def forward(self, ids, labels):
        x = self.emb(ids)
        for m in self.layers:
            x = m(x)
        logits = self.head(self.lnf(x))
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), labels.view(-1))


class Sampler:
    """Mean board power (W) and SM clock (MHz) while the body runs."""

    def __enter__(self):
        self.ps, self.cs, self.stop = [], [], False
        def run():
            while not self.stop:
                self.ps.append(pynvml.nvmlDeviceGetPowerUsage(NV) / 1e3)
                self.cs.append(pynvml.nvmlDeviceGetClockInfo(NV, pynvml.NVML_CLOCK_SM))
                time.sleep(0.01)
        self.t = threading.Thread(target=run)
        if NV is not None:
            self.t.start()
        return self

    def __exit__(self, *a):
        self.stop = True
        if NV is not None:
            self.t.join()

    def result(self):
        if not self.ps:
            return "", ""
        n = len(self.ps)
        ps, cs = self.ps[n // 5:], self.cs[n // 5:]  # drop the ramp
        return f"{statistics.mean(ps):.1f}", f"{statistics.median(cs):.0f}"


def step_times(model, ids, labels, reps):
    def fwd():
        return model(ids, labels)

    def step():
        model(ids, labels).backward()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    ev = lambda: torch.cuda.Event(enable_timing=True)
    tf, ts = [], []
    for _ in range(reps):
        a, b, c = ev(), ev(), ev()
        a.record()
        loss = fwd()
        b.record()
        loss.backward()
        c.record()
        torch.cuda.synchronize()
        tf.append(a.elapsed_time(b))
        ts.append(a.elapsed_time(c))
    with Sampler() as smp:
        end = time.time() + 2.0
        while time.time() < end:
            step()
        torch.cuda.synchronize()
    return statistics.median(tf), statistics.median(ts), smp.result()


SHAPES = [  # name, layers, hidden, heads, microbatches, tp (one TP rank's share, no communication)
    ("gpt-1.7b", 24, 2048, 16, (1, 2, 4), 1),
    ("h4096-l8", 8, 4096, 32, (1, 2), 1),
    ("h6144-l4", 4, 6144, 48, (1, 2), 1),
    ("h8192-l4", 4, 8192, 64, (1,), 1),
    ("h12288-l2", 2, 12288, 96, (1,), 1),
]
SHAPES_TP = [  # the per-rank shapes of the H100 table's TP rows (GPT-7.1B, 16B, 32B, 70B)
    ("h4096-tp2-l16", 16, 4096, 32, (1, 2, 4), 2),
    ("h6144-tp4-l16", 16, 6144, 48, (1, 2, 4), 4),
    ("h7168-tp8-l16", 16, 7168, 56, (1, 2, 4), 8),
    ("h8192-tp8-l16", 16, 8192, 64, (1, 2), 8),
]
V, S = 131072, 4096

W = csv.writer(sys.stdout)
W.writerow(["name", "layers", "hidden", "heads", "ffn", "vocab", "seq", "microbatch", "mode",
            "fwd_ms", "step_ms", "model_tflops", "power_w", "sm_mhz", "tp"])
modes = ["eager", "compiled"] if len(sys.argv) < 2 else sys.argv[1].split(",")
shapes = SHAPES_TP if len(sys.argv) > 2 and sys.argv[2] == "tp" else SHAPES
for mode in modes:
    for name, L, h, a, mbs, tp in shapes:
        try:
            model = GPT(L, h, a, V, mode.startswith("compiled"),
                        0.1 if mode.endswith("-drop") else 0.0, tp).to(dev, torch.bfloat16)
        except Exception as e:  # noqa: BLE001 (compile unavailable)
            print(f"# {name} {mode}: {e!r}"[:300], file=sys.stderr)
            continue
        for b in mbs:
            ids = torch.randint(0, V // tp, (b, S), device=dev)
            labels = torch.randint(0, V // tp, (b, S), device=dev)
            try:
                tf, ts, (pw, mhz) = step_times(model, ids, labels, 5)
            except Exception as e:  # noqa: BLE001
                print(f"# {name} mb{b} {mode}: {e!r}"[:300], file=sys.stderr)
                torch.cuda.empty_cache()
                continue
            # Megatron's model FLOPs (non-causal attention counted), forward + backward
            # (of this rank: the whole model's count divided by tp)
            flops = 72.0 * b * S * L * h * h * (1 + S / (6.0 * h) + V / (12.0 * L * h)) / tp
            W.writerow([name, L, h, a, 4 * h, V, S, b, mode, f"{tf:.3f}", f"{ts:.3f}",
                        f"{flops / (ts * 1e-3) / 1e12:.1f}", pw, mhz, tp])
            sys.stdout.flush()
            del ids, labels
        del model
        torch.cuda.empty_cache()
