#!/usr/bin/env python3
# h100_power.py — board power, SM clock and throughput of sustained kernels on
# one real GPU, at the clocks the GPU picks itself: it never changes clocks,
# power limits or any setting; it reads NVML (power, SM/memory clock, the
# throttle-reason mask, temperature) while each workload loops for ~3 s.
# Workloads: bf16 GEMMs of several sizes (large ones hit the board power
# limit), a large GEMM with idle gaps (torch.cuda._sleep) at several duty
# cycles, an FP8 GEMM, cuDNN causal attention forward+backward, a device copy
# (HBM-bound), an elementwise chain, and idle. Output: CSV on stdout,
# committed as bench/data/h100-power.csv (provenance in bench/data/README.md).
import csv, statistics, sys, time
import torch
import torch.nn.functional as F
import pynvml

pynvml.nvmlInit()
NV = pynvml.nvmlDeviceGetHandleByIndex(0)
dev = torch.device("cuda")
torch.manual_seed(0)
W = csv.writer(sys.stdout)
W.writerow(["workload", "seconds", "power_w", "power_min_w", "power_max_w", "sm_mhz",
            "sm_mhz_min", "sm_mhz_max", "mem_mhz", "throttle_power_frac", "temp_c",
            "tflops", "gbps", "busy_frac"])

PWR_CAP = getattr(pynvml, "nvmlClocksThrottleReasonSwPowerCap", 0x4)
HW_SLOW = getattr(pynvml, "nvmlClocksThrottleReasonHwSlowdown", 0x8)


def run(name, fn, flops=0.0, nbytes=0.0, busy=1.0, seconds=3.0):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    # one call's time, to batch calls between NVML reads
    a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
    a.record(); fn(); b.record(); torch.cuda.synchronize()
    per = max(a.elapsed_time(b) * 1e-3, 1e-6)
    batch = max(1, int(0.02 / per))
    ps, cs, ms, thr, temps = [], [], [], 0, []
    n = 0
    t0 = time.time()
    e0 = torch.cuda.Event(enable_timing=True); e0.record()
    while time.time() - t0 < seconds:
        for _ in range(batch):
            fn()
        n += batch
        if time.time() - t0 > 0.8:  # past the ramp
            ps.append(pynvml.nvmlDeviceGetPowerUsage(NV) / 1000.0)
            cs.append(pynvml.nvmlDeviceGetClockInfo(NV, pynvml.NVML_CLOCK_SM))
            ms.append(pynvml.nvmlDeviceGetClockInfo(NV, pynvml.NVML_CLOCK_MEM))
            r = pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(NV)
            thr += 1 if (r & (PWR_CAP | HW_SLOW)) else 0
            temps.append(pynvml.nvmlDeviceGetTemperature(NV, pynvml.NVML_TEMPERATURE_GPU))
    e1 = torch.cuda.Event(enable_timing=True); e1.record()
    torch.cuda.synchronize()
    el = e0.elapsed_time(e1) * 1e-3
    W.writerow([name, f"{el:.3f}", f"{statistics.mean(ps):.1f}", f"{min(ps):.1f}",
                f"{max(ps):.1f}", f"{statistics.median(cs):.0f}", f"{min(cs)}", f"{max(cs)}",
                f"{statistics.median(ms):.0f}", f"{thr / len(ps):.2f}",
                f"{statistics.mean(temps):.0f}",
                f"{flops * n / el / 1e12:.1f}" if flops else "",
                f"{nbytes * n / el / 1e9:.1f}" if nbytes else "", f"{busy:.2f}"])
    sys.stdout.flush()


def idle(seconds=3.0):
    torch.cuda.synchronize()
    time.sleep(1.0)
    ps, cs = [], []
    t0 = time.time()
    while time.time() - t0 < seconds:
        ps.append(pynvml.nvmlDeviceGetPowerUsage(NV) / 1000.0)
        cs.append(pynvml.nvmlDeviceGetClockInfo(NV, pynvml.NVML_CLOCK_SM))
        time.sleep(0.05)
    W.writerow(["idle", f"{seconds:.3f}", f"{statistics.mean(ps):.1f}", f"{min(ps):.1f}",
                f"{max(ps):.1f}", f"{statistics.median(cs):.0f}", f"{min(cs)}", f"{max(cs)}",
                "", "", "", "", "", "0.00"])
    sys.stdout.flush()


print(f"# {torch.cuda.get_device_name(0)} torch={torch.__version__} limit="
      f"{pynvml.nvmlDeviceGetEnforcedPowerLimit(NV)/1000:.0f} W", file=sys.stderr)
idle()
for s in (8192, 4096, 2048, 1024):
    x = torch.randn(s, s, device=dev, dtype=torch.bfloat16)
    y = torch.randn(s, s, device=dev, dtype=torch.bfloat16)
    run(f"gemm-bf16-{s}", lambda: torch.mm(x, y), flops=2.0 * s ** 3)
# duty cycles: one 8192 GEMM (~1.4 ms) then an idle gap on the GPU
x = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
y = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
for _ in range(5):
    torch.mm(x, y)
a.record(); torch.mm(x, y); b.record(); torch.cuda.synchronize()
g_s = a.elapsed_time(b) * 1e-3
a.record(); torch.cuda._sleep(1000000); b.record(); torch.cuda.synchronize()
cyc_per_s = 1000000 / (a.elapsed_time(b) * 1e-3)
for duty in (0.75, 0.5, 0.25):
    gap = int(g_s * (1 - duty) / duty * cyc_per_s)
    run(f"gemm-bf16-8192-duty{int(duty*100)}", lambda: (torch.mm(x, y), torch.cuda._sleep(gap)),
        flops=2.0 * 8192 ** 3, busy=duty)
del x, y
x8 = torch.randn(8192, 8192, device=dev).to(torch.float8_e4m3fn)
y8 = torch.randn(8192, 8192, device=dev).to(torch.float8_e4m3fn).t()
one = torch.tensor(1.0, device=dev)
run("gemm-fp8-8192", lambda: torch._scaled_mm(x8, y8, scale_a=one, scale_b=one,
                                               out_dtype=torch.bfloat16), flops=2.0 * 8192 ** 3)
del x8, y8
from torch.nn.attention import sdpa_kernel, SDPBackend
q = torch.randn(1, 16, 4096, 128, device=dev, dtype=torch.bfloat16, requires_grad=True)
k = torch.randn_like(q, requires_grad=True); v = torch.randn_like(q, requires_grad=True)
g = torch.randn_like(q)
def attn():
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        torch.autograd.backward(o, g)
f_fwd = 4.0 * 16 * 4096 * 4096 * 128 / 2
run("attn-cudnn-fwdbwd-s4096-h16", attn, flops=3.5 * f_fwd)
del q, k, v, g
src = torch.empty(1 << 30, device=dev, dtype=torch.uint8).random_(0, 255)
dst = torch.empty_like(src)
run("copy-1GiB", lambda: dst.copy_(src), nbytes=2.0 * (1 << 30))
del src, dst
z = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
run("elementwise-gelu", lambda: F.gelu(z, approximate="tanh"), nbytes=2.0 * 2 * 8192 * 8192)
del z
idle()
