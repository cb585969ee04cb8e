#!/usr/bin/env python3
"""
dvfs_forms.py -- alternative time-model forms for the DVFS calibration,
scored by the leave-one-family-out cross-validation of bench_dvfs_crossval
(hw/README.md, "Calibration", the session-28 list of tried forms).

A NumPy/SciPy copy of hw/calibrate.c's time and power-ratio fits and of
bench/dvfs_crossval.c: variant 'base' reproduces the C table digit for digit.
Every other variant keeps the split (lo, hi) the base fit finds for each
fold (except 'sig-l1-freeH-split', which refits it) and changes the memory
part of the time ratio only; the power-ratio tables are refitted on each
variant's predicted time ratios, as in C. Data: bench/data/dvfs-*.csv.
Numbers are measurements of these forms, not model constants: nothing here
is used by culonx.

Usage: python3 bench/dvfs_forms.py [--in-sample] [VARIANT ...]   (no variant:
all but the slow 'sig-l1-freeH-split'; 'list' prints the names;
--in-sample fits on every family and scores time on the same rows). Needs numpy and scipy
(Debian: python3-numpy python3-scipy). Runs ~1 min for the base splits, then
seconds to a minute per variant on one core.
"""
import csv
import os
import sys
from collections import OrderedDict

import numpy as np
from scipy.optimize import least_squares, nnls

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
GPUS = ('v100', 'rtx8000')


def data_path(g):
    return os.path.join(DATA_DIR, 'dvfs-%s-microbench.csv' % g)



def compass(ev, lo, hi, s0, aux0, steps, tol):
    """compass search of the DRAM split (lo, hi) at each step size in turn, as
    hw/calibrate.c refines it: ev(lo, hi) -> (score, aux); the best (score, lo, hi, aux)"""
    for h in steps:
        moved = True
        while moved:
            moved = False
            for dl, dh in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                l2, h2 = lo + dl * h, hi + dh * h
                if l2 < 0 or h2 <= l2 + 1e-3: continue
                s, aux = ev(l2, h2)
                if s < s0 - tol: s0, aux0, lo, hi, moved = s, aux, l2, h2, True
    return s0, lo, hi, aux0

class _BaseFits(dict):
    """(gpu, held-out family) -> the base fit (its split and scales), computed on first use"""

    def __missing__(self, key):
        g, fam = key
        clocks, kern = load(data_path(g))
        P = Base().fit([k for k in kern if k['fam'] != fam], clocks)
        self[key] = P
        return P


BASEFITS = _BaseFits()


def load(path):
    rows = list(csv.DictReader(open(path)))
    K = OrderedDict()
    for r in rows:
        key = (r['benchmark'], r['kernel'], r['input'])
        K.setdefault(key, []).append(r)
    clocks = sorted({float(r['core_mhz']) for r in rows})
    kern = []
    for key, rs in K.items():
        ref = max(rs, key=lambda r: float(r['core_mhz']))  # earliest among equal
        f = lambda r, n: float(r[n]) if r[n] not in ('', 'nan') else 0.0
        d = dict(fam=key[0], key=key,
                 dram=min(max(f(ref, 'dram_active'), 0), 1),
                 u=min(1, min(1, f(ref, 'fp16_active') + f(ref, 'fp32_active') + f(ref, 'fp64_active')) + min(1, f(ref, 'tensor_active'))),
                 p0=f(ref, 'power_w'), t0=f(ref, 'time_ms'),
                 occ=f(ref, 'sm_occupancy'), sm=f(ref, 'sm_active'))
        ratio = np.full(len(clocks), np.nan); pw = np.full(len(clocks), np.nan)
        for r in rs:
            j = clocks.index(float(r['core_mhz']))
            ratio[j] = f(r, 'time_ms') / d['t0']; pw[j] = f(r, 'power_w')
        d['ratio'] = ratio; d['pw'] = pw
        kern.append(d)
    return clocks, kern

def huber_ridge(A, b, pen, lam):
    m, n = A.shape
    w = np.ones(m); x = np.zeros(n)
    for it in range(50):
        sw = np.sqrt(w)
        AA = np.vstack([A * sw[:, None], np.diag(np.sqrt(lam * pen))])
        bb = np.concatenate([b * sw, np.zeros(n)])
        xn = np.linalg.lstsq(AA, bb, rcond=None)[0]
        change = np.max(np.abs(xn - x)); x = xn
        r = b - A @ x
        mad = np.median(np.abs(r)); sc = 1.345 * mad / 0.6745
        if not sc > 0: break
        w = np.where(np.abs(r) <= sc, 1.0, sc / np.maximum(np.abs(r), 1e-300))
        if it > 0 and change < 1e-12: break
    return x

def phi(k, R):
    s = 100.0 / k['p0']; ir = 1.0 / R
    return np.array([1, s, k['dram'] * ir, s * k['dram'] * ir, k['u'] * ir, s * k['u'] * ir])

def fit_power(kt, model, params, nclk):
    tabs = []
    for j in range(nclk):
        A = []; b = []
        for k in kt:
            if np.isnan(k['pw'][j]) or k['pw'][j] <= 0: continue
            R = model.predict(params, k, j)
            A.append(phi(k, R)); b.append(k['pw'][j] / k['p0'])
        A = np.array(A); b = np.array(b)
        tabs.append(huber_ridge(A, b, np.array([0, 1, 1, 1, 1, 1.]), 1e-3 * len(b)))
    return tabs

class Base:
    """current model: (1-c)*max(a + e*pw + g*u, b*u) + c*b; prediction R(f)/R(fmax)"""
    def cfrac(self, lo, hi, d):
        return 1 - min(1, max(0, (d - lo) / (hi - lo)))
    def eval_split(self, kt, nclk, lo, hi, store=None):
        tot = 0
        for j in range(nclk):
            ks = [k for k in kt if not np.isnan(k['ratio'][j])]
            n = len(ks)
            c = np.array([self.cfrac(lo, hi, k['dram']) for k in ks])
            pw = np.array([k['p0'] / 100 for k in ks]); u = np.array([k['u'] for k in ks])
            w = 1 / np.array([k['ratio'][j] for k in ks])
            fpb = np.zeros(n, bool)
            for rnd in range(8):
                mw = np.where(fpb, 0, (1 - c) * w)
                A = np.column_stack([mw, mw * pw, mw * u, (c + np.where(fpb, (1 - c) * u, 0)) * w])
                x, rn = nnls(A, np.ones(n))
                on = x[3] * u > x[0] + x[1] * pw + x[2] * u
                ch = (on != fpb).any(); fpb = on
                if not ch: break
            tot += rn ** 2
            if store is not None: store.append(x)
        return tot
    def fit(self, kt, clocks):
        nclk = len(clocks)
        best = (np.inf, 0, 1)
        for i in range(40):
            for jj in range(i + 1, 49):
                s = self.eval_split(kt, nclk, i * 0.025, jj * 0.025)
                if s < best[0]: best = (s, i * 0.025, jj * 0.025)
        s0, lo, hi = best
        steps, h = [], 0.0125
        while h > 1e-4: steps.append(h); h *= 0.5
        s0, lo, hi, _ = compass(lambda l, u: (self.eval_split(kt, nclk, l, u), None),
                                lo, hi, s0, None, steps, 1e-15)
        X = []
        self.eval_split(kt, nclk, lo, hi, X)
        return dict(lo=lo, hi=hi, X=X, n=nclk)
    def R(self, P, k, j):
        c = self.cfrac(P['lo'], P['hi'], k['dram']); x = P['X'][j]
        pw = k['p0'] / 100; u = k['u']
        m = max(x[0] + x[1] * pw + x[2] * u, x[3] * u)
        return (1 - c) * m + c * x[3]
    def predict(self, P, k, j):
        return self.R(P, k, j) / self.R(P, k, P['n'] - 1)



KAPPA = 0.0  # W/100 per unit FP activity subtracted from P0 (WithKappa)


def feats(ks, lo, hi):
    d = np.array([k['dram'] for k in ks]); u = np.array([k['u'] for k in ks])
    pw = np.array([k['p0'] / 100 for k in ks]) - KAPPA * u
    c = 1 - np.clip((d - lo) / (hi - lo), 0, 1)
    return dict(d=d, u=u, pw=pw, c=c, occ=np.array([k['occ'] for k in ks]))

class Gen:
    """per-clock params theta (npc each), globals g (ng); raw(theta_j, g, F, j) -> R_j.
    fitted jointly by least_squares on relative or log residuals, init from base NNLS."""
    npc = 4; ng = 0; loss = 'rel'; gname = 'G'
    def __init__(self, **kw):
        self.__dict__.update(kw)
    def raw(self, th, g, F, j):
        a, e, gg, b = th
        m = np.maximum(a + e * F['pw'] + gg * F['u'], b * F['u'])
        return (1 - F['c']) * m + F['c'] * b
    def init(self, X):
        return np.array(X), np.zeros(self.ng)
    def glob_bounds(self):
        return [0] * self.ng, [np.inf] * self.ng
    def fit(self, kt, clocks, key=None):
        P = BASEFITS[key]
        nclk = len(clocks)
        F = feats(kt, P['lo'], P['hi'])
        Y = np.array([k['ratio'] for k in kt])
        th0, g0 = self.init(P['X'])
        npc = self.npc
        def unpack(z):
            return z[:nclk * npc].reshape(nclk, npc), z[nclk * npc:]
        def res(z):
            th, g = unpack(z)
            out = []
            for j in range(nclk):
                y = Y[:, j]; ok = ~np.isnan(y)
                r = self.raw(th[j], g, F, j)
                if self.loss == 'rel':
                    out.append((r[ok] / y[ok] - 1))
                else:
                    out.append(np.log(np.maximum(r[ok], 1e-9) / y[ok]))
            return np.concatenate(out)
        z0 = np.concatenate([th0.ravel(), g0])
        lb = np.concatenate([np.zeros(nclk * npc), self.glob_bounds()[0]])
        ub = np.concatenate([np.full(nclk * npc, np.inf), self.glob_bounds()[1]])
        z0 = np.clip(z0, lb + 1e-12, np.where(np.isinf(ub), np.inf, ub - 1e-12))
        sol = least_squares(res, z0, bounds=(lb, ub), method='trf', x_scale='jac', max_nfev=3000)
        th, g = unpack(sol.x)
        return dict(th=th, g=g, lo=P['lo'], hi=P['hi'], n=nclk)
    def predict(self, P, k, j):
        F = feats([k], P['lo'], P['hi'])
        return float(self.raw(P['th'][j], P['g'], F, j)[0] / self.raw(P['th'][P['n'] - 1], P['g'], F, P['n'] - 1)[0])

def crossval2(path, model, gpu, verbose=True, label=''):
    clocks, kern = load(path)
    nclk = len(clocks)
    fams = list(OrderedDict.fromkeys(k['fam'] for k in kern))
    et = np.zeros(nclk); ee = np.zeros(nclk); cnt = np.zeros(nclk)
    for Fm in fams:
        kt = [k for k in kern if k['fam'] != Fm]
        params = model.fit(kt, clocks, key=(gpu, Fm))
        tabs = fit_power(kt, model, params, nclk)
        for k in kern:
            if k['fam'] != Fm: continue
            g0 = phi(k, 1.0) @ tabs[nclk - 1]
            for j in range(nclk):
                R = model.predict(params, k, j)
                t = k['t0'] * R
                p = k['p0'] if j == nclk - 1 else k['p0'] * (phi(k, R) @ tabs[j]) / g0
                mt = k['t0'] * k['ratio'][j]; mp = k['pw'][j]
                et[j] += 100 * abs(t / mt - 1); ee[j] += 100 * abs(t * p / (mt * mp) - 1); cnt[j] += 1
        if verbose > 1: print(Fm, params['g'])
    et /= cnt; ee /= cnt
    s = '%-28s %-8s t %.2f/%.2f(%4.0f) e %.2f/%.2f  | t ' % (label, gpu, et.mean(), et.max(), clocks[et.argmax()], ee.mean(), ee.max()) + ' '.join('%.2f' % x for x in et)
    print(s, flush=True)
    return et, ee



class Smooth(Gen):
    """memory part: (A^k + (b u)^k)^(1/k), k global fixed"""
    def raw(self, th, g, F, j):
        a, e, gg, b = th
        A = a + e * F['pw'] + gg * F['u']; B = b * F['u']
        m = (A ** self.k + B ** self.k) ** (1 / self.k)
        return (1 - F['c']) * m + F['c'] * b

class Round(Gen):
    """single rounded roofline: ((1-c) A)^k + ((c + (1-c) u) b)^k"""
    def raw(self, th, g, F, j):
        a, e, gg, b = th
        A = a + e * F['pw'] + gg * F['u']
        M = (1 - F['c']) * A; C = (F['c'] + (1 - F['c']) * F['u']) * b
        return (M ** self.k + C ** self.k) ** (1 / self.k)
class GlobalE(Gen):
    """per clock (a_j, g_j, b_j) and one global e, started at e0"""
    npc = 3; ng = 1; e0 = 0.3
    def init(self, X):
        X = np.array(X); return X[:, [0, 2, 3]], np.array([self.e0])
class EffAdd(GlobalE):
    """A = a_j + e*pw*(b_j) + g_j u, e global"""
    def raw(self, th, g, F, j):
        a, gg, b = th; e = g[0]
        A = a + e * F['pw'] * (b - self.off) + gg * F['u']
        m = np.maximum(A, b * F['u'])
        return (1 - F['c']) * m + F['c'] * b
class EffMax(GlobalE):
    """A = max(a_j + g_j u, e*pw*b_j, b u), e global"""
    e0 = 0.5
    def raw(self, th, g, F, j):
        a, gg, b = th; e = g[0]
        m = np.maximum(np.maximum(a + gg * F['u'], e * F['pw'] * b), b * F['u'])
        return (1 - F['c']) * m + F['c'] * b

class Cap(Gen):
    """mem = max(min(a + e pw + g u, cap), b u), cap per clock; a may be negative if neg"""
    npc = 5
    def init(self, X):
        X = np.array(X); return np.column_stack([X, X[:, 3] * 1.5]), np.zeros(0)
    def fit(self, kt, clocks, key=None):
        self._n = len(clocks)
        return Gen.fit(self, kt, clocks, key)
    def raw(self, th, g, F, j):
        a, e, gg, b, cap = th
        A = np.minimum(a + e * F['pw'] + gg * F['u'], cap)
        m = np.maximum(A, b * F['u'])
        if self.floor: m = np.maximum(m, 0.3)
        return (1 - F['c']) * m + F['c'] * b
class CapNeg(Cap):
    def fit(self, kt, clocks, key=None):
        P = BASEFITS[key]; nclk = len(clocks)
        F = feats(kt, P['lo'], P['hi']); Y = np.array([k['ratio'] for k in kt])
        th0, _ = self.init(P['X'])
        def res(z):
            th = z.reshape(nclk, 5); out = []
            for j in range(nclk):
                y = Y[:, j]; ok = ~np.isnan(y); r = self.raw(th[j], None, F, j)
                out.append(r[ok] / y[ok] - 1 if self.loss == 'rel' else np.log(np.maximum(r[ok], 1e-9) / y[ok]))
            return np.concatenate(out)
        lb = np.tile([-20, 0, 0, 0, 0], nclk).astype(float); ub = np.full(5 * nclk, np.inf)
        z0 = np.clip(th0.ravel(), lb + 1e-9, None)
        sol = least_squares(res, z0, bounds=(lb, ub), method='trf', x_scale='jac', max_nfev=5000)
        return dict(th=sol.x.reshape(nclk, 5), g=None, lo=P['lo'], hi=P['hi'], n=nclk)

class Smooth3(Gen):
    """mem = ((a + g u)^k + (e pw)^k + (b u)^k)^(1/k)"""
    def raw(self, th, g, F, j):
        a, e, gg, b = th
        k = self.k
        m = ((a + gg * F['u']) ** k + (e * F['pw']) ** k + (b * F['u']) ** k) ** (1 / k)
        return (1 - F['c']) * m + F['c'] * b

def sigm(x): return 0.5 * (1 + np.tanh(0.5 * x))
class Sig:
    """mem = L (1 - s) + b s + g u, s = sigmoid((pw - p)/w); max with b u; per clock L, g, b by NNLS
    alternation, (p, w) by grid per clock. loss rel."""
    def __init__(self, ps=None, ws=None, gterm=True):
        self.ps = ps if ps is not None else np.arange(0.9, 2.3, 0.05)
        self.ws = ws if ws is not None else [0.02, 0.05, 0.1, 0.2, 0.4]
        self.gterm = gterm
    def fit_clock(self, F, y, p, w):
        c, u, pw = F['c'], F['u'], F['pw']; n = len(y)
        s = sigm((pw - p) / w); wt = 1 / y
        fpb = np.zeros(n, bool)
        for rnd in range(8):
            mw = np.where(fpb, 0, (1 - c) * wt)
            A = np.column_stack([mw * (1 - s), mw * u if self.gterm else np.zeros(n), (c + np.where(fpb, (1 - c) * u, (1 - c) * s)) * wt])
            x, rn = nnls(A, np.ones(n))
            on = x[2] * u > x[0] * (1 - s) + x[2] * s + x[1] * u
            ch = (on != fpb).any(); fpb = on
            if not ch: break
        return rn ** 2, x
    def grid(self, Fj, yj):
        """one clock's best switch (p, w) on the grid: (residual, x, p, w)"""
        best = None
        for p in self.ps:
            for w in self.ws:
                r, x = self.fit_clock(Fj, yj, p, w)
                if best is None or r < best[0] - 1e-15: best = (r, x, p, w)
        return best
    @staticmethod
    def clock_rows(kt, nclk, P):
        """per clock j: the features and time ratios of the kernels measured there"""
        F = feats(kt, P['lo'], P['hi']); Y = np.array([k['ratio'] for k in kt])
        for j in range(nclk):
            ok = ~np.isnan(Y[:, j])
            yield {k: v[ok] for k, v in F.items()}, Y[ok, j]
    def fit(self, kt, clocks, key=None):
        P = BASEFITS[key]; nclk = len(clocks)
        th = []
        for Fj, yj in self.clock_rows(kt, nclk, P):
            best = self.grid(Fj, yj)
            th.append((best[1], best[2], best[3]))
        return dict(th=th, lo=P['lo'], hi=P['hi'], n=nclk, g=None)
    def raw(self, t, F):
        x, p, w = t; c, u, pw = F['c'], F['u'], F['pw']
        s = sigm((pw - p) / w)
        m = np.maximum(x[0] * (1 - s) + x[2] * s + x[1] * u, x[2] * u)
        return (1 - c) * m + c * x[2]
    def predict(self, P, k, j):
        F = feats([k], P['lo'], P['hi'])
        return float(self.raw(P['th'][j], F)[0] / self.raw(P['th'][P['n'] - 1], F)[0])

class Sig2(Sig):
    """variants: irls (L1 on relative errors), lin (add e*pw), freeH (upper asymptote free)"""
    def __init__(self, irls=0, lin=False, freeH=False, **kw):
        Sig.__init__(self, **kw); self.irls = irls; self.lin = lin; self.freeH = freeH
    def cols(self, F, s, fpb, wt):
        c, u, pw = F['c'], F['u'], F['pw']; n = len(c)
        mw = np.where(fpb, 0, (1 - c) * wt)
        cols = [mw * (1 - s), mw * u if self.gterm else np.zeros(n)]
        if self.freeH:
            cols += [mw * s, (c + np.where(fpb, (1 - c) * u, 0)) * wt]
        else:
            cols += [(c + np.where(fpb, (1 - c) * u, (1 - c) * s)) * wt]
        if self.lin: cols.append(mw * pw)
        return np.column_stack(cols)
    def mem(self, x, s, F):
        u, pw = F['u'], F['pw']
        H = x[2]  # the core-limited asymptote: b itself unless freeH
        b = x[2] if not self.freeH else x[3]
        m = x[0] * (1 - s) + H * s + x[1] * u + (x[-1] * pw if self.lin else 0)
        return m, b
    def fit_clock(self, F, y, p, w):
        u, pw = F['u'], F['pw']; n = len(y)
        s = sigm((pw - p) / w); wt0 = 1 / y; rw = np.ones(n)
        for it in range(max(1, self.irls)):
            fpb = np.zeros(n, bool)
            for rnd in range(8):
                A = self.cols(F, s, fpb, wt0) * np.sqrt(rw)[:, None]
                x, rn = nnls(A, np.sqrt(rw))
                m, b = self.mem(x, s, F)
                on = b * u > m
                ch = (on != fpb).any(); fpb = on
                if not ch: break
            r = self.raw_x(x, s, F) / y - 1
            if self.irls: rw = 1 / np.maximum(np.abs(r), 1e-3)
        return (np.sum(np.abs(r)) if self.irls else np.sum(r ** 2)), x
    def raw_x(self, x, s, F):
        m, b = self.mem(x, s, F)
        m = np.maximum(m, b * F['u'])
        return (1 - F['c']) * m + F['c'] * b
    def raw(self, t, F):
        x, p, w = t
        return self.raw_x(x, sigm((F['pw'] - p) / w), F)

class SharedQ:
    """R_j = (1-c) max(L_j + g_j u + e_j pw, q b_j, u b_j) + c b_j; q = sigmoid((pw-p)/w), global p, w"""
    def __init__(self, lin=True, irls=0, ps=np.arange(0.9, 2.3, 0.05), ws=(0.02, 0.05, 0.1, 0.2, 0.4)):
        self.lin = lin; self.irls = irls; self.ps = ps; self.ws = ws
    def fit_clock(self, F, y, q):
        c, u, pw = F['c'], F['u'], F['pw']; n = len(y); wt = 1 / y
        piece = np.zeros(n, int)  # 0 mem, 1 q, 2 u
        rw = np.ones(n)
        for it in range(max(1, self.irls)):
            for rnd in range(10):
                mw = np.where(piece == 0, (1 - c) * wt, 0)
                bcoef = c + (1 - c) * np.where(piece == 1, q, np.where(piece == 2, u, 0))
                A = np.column_stack([mw, mw * u, mw * pw if self.lin else np.zeros(n), bcoef * wt]) * np.sqrt(rw)[:, None]
                x, rn = nnls(A, np.sqrt(rw))
                cand = np.column_stack([x[0] + x[1] * u + x[2] * pw, q * x[3], u * x[3]])
                new = cand.argmax(1)
                ch = (new != piece).any(); piece = new
                if not ch: break
            r = self.rawx(x, q, F) / y - 1
            if self.irls: rw = 1 / np.maximum(np.abs(r), 1e-3)
        return (np.sum(np.abs(r)) if self.irls else np.sum(r ** 2)), x
    def rawx(self, x, q, F):
        c, u, pw = F['c'], F['u'], F['pw']
        m = np.maximum(np.maximum(x[0] + x[1] * u + x[2] * pw, q * x[3]), u * x[3])
        return (1 - c) * m + c * x[3]
    def fit(self, kt, clocks, key=None):
        P = BASEFITS[key]; nclk = len(clocks)
        F = feats(kt, P['lo'], P['hi']); Y = np.array([k['ratio'] for k in kt])
        best = None
        for p in self.ps:
            for w in self.ws:
                q = sigm((F['pw'] - p) / w); tot = 0; X = []
                for j in range(nclk):
                    ok = ~np.isnan(Y[:, j])
                    r, x = self.fit_clock({k: v[ok] for k, v in F.items()}, Y[ok, j], q[ok])
                    tot += r; X.append(x)
                if best is None or tot < best[0]: best = (tot, X, p, w)
        return dict(X=best[1], p=best[2], w=best[3], lo=P['lo'], hi=P['hi'], n=nclk, g=(best[2], best[3]))
    def raw(self, P, F, j):
        return self.rawx(P['X'][j], sigm((F['pw'] - P['p']) / P['w']), F)
    def predict(self, P, k, j):
        F = feats([k], P['lo'], P['hi'])
        return float(self.raw(P, F, j)[0] / self.raw(P, F, P['n'] - 1)[0])

class SigNL(Sig2):
    """grid-init sigmoid, then per-clock nonlinear refinement with extra index features;
    z = (pw - p + sum beta_k f_k)/w"""
    def __init__(self, extra=(), loss='soft_l1', fs=0.02, **kw):
        Sig2.__init__(self, **kw); self.extra = extra; self.lossn = loss; self.fs = fs
    def zfun(self, q, F):
        p, w = q[0], q[1]; z = F['pw'] - p
        for i, nm in enumerate(self.extra): z = z + q[2 + i] * F[nm]
        return z / w
    def rawq(self, x, q, F):
        return self.raw_x(x, sigm(self.zfun(q, F)), F)
    def fit(self, kt, clocks, key=None):
        P = BASEFITS[key]; nclk = len(clocks)
        th = []
        for Fj, yj in self.clock_rows(kt, nclk, P):
            best = self.grid(Fj, yj)
            x0 = best[1]; q0 = np.array([best[2], best[3]] + [0.0] * len(self.extra))
            nx = len(x0)
            def res(z):
                return self.rawq(z[:nx], z[nx:], Fj) / yj - 1
            lb = np.concatenate([np.zeros(nx), [-np.inf, 1e-3], [-np.inf] * len(self.extra)])
            z0 = np.concatenate([np.maximum(x0, 1e-9), q0])
            sol = least_squares(res, z0, bounds=(lb, np.inf), loss=self.lossn, f_scale=self.fs, max_nfev=2000)
            th.append((sol.x[:nx], sol.x[nx:]))
        return dict(th=th, lo=P['lo'], hi=P['hi'], n=nclk, g=None)
    def raw(self, t, F):
        return self.rawq(t[0], t[1], F)


class SigSplit(Sig2):
    """Sig2 with the split (lo, hi) refitted by pattern search from the base split"""

    def fit(self, kt, clocks, key=None):
        P0 = BASEFITS[key]; nclk = len(clocks)
        Y = np.array([k['ratio'] for k in kt])
        def ev(lo, hi):
            F = feats(kt, lo, hi); tot = 0; th = []
            for j in range(nclk):
                ok = ~np.isnan(Y[:, j])
                best = self.grid({k: v[ok] for k, v in F.items()}, Y[ok, j])
                tot += best[0]; th.append((best[1], best[2], best[3]))
            return tot, th
        lo, hi = P0['lo'], P0['hi']; s0, th0 = ev(lo, hi)
        s0, lo, hi, th0 = compass(ev, lo, hi, s0, th0, (0.05, 0.025, 0.0125), 1e-12)
        return dict(th=th0, lo=lo, hi=hi, n=nclk, g=None)


class BaseC:
    """the shipped fit exactly as hw/calibrate.c (NNLS alternation, split search)"""

    def fit(self, kt, clocks, key=None):
        return BASEFITS[key]

    def predict(self, P, k, j):
        return Base().predict(P, k, j)


class WithKappa:
    """inner model with P0 - kappa*u (the FP pipes' power taken out) in place of P0"""

    def __init__(self, inner, kappa_w):
        self.inner = inner; self.kappa = kappa_w / 100.0

    def _with(self, f, *a, **kw):
        global KAPPA
        KAPPA = self.kappa
        try:
            return f(*a, **kw)
        finally:
            KAPPA = 0.0

    def fit(self, kt, clocks, key=None):
        return self._with(self.inner.fit, kt, clocks, key=key)

    def predict(self, P, k, j):
        return self._with(self.inner.predict, P, k, j)


VARIANTS = OrderedDict([
    ('base', lambda: BaseC()),
    ('smooth-k2', lambda: Smooth(k=2)), ('smooth-k4', lambda: Smooth(k=4)), ('smooth-k8', lambda: Smooth(k=8)),
    ('smooth3-k2', lambda: Smooth3(k=2)), ('smooth3-k3', lambda: Smooth3(k=3)),
    ('smooth3-k4', lambda: Smooth3(k=4)), ('smooth3-k6', lambda: Smooth3(k=6)),
    ('round-k2', lambda: Round(k=2)), ('round-k4', lambda: Round(k=4)),
    ('round-k8', lambda: Round(k=8)), ('round-k16', lambda: Round(k=16)),
    ('log', lambda: Gen(loss='log')),
    ('eff-add', lambda: EffAdd(off=0.0)), ('eff-add-minus1', lambda: EffAdd(off=1.0)), ('eff-max', lambda: EffMax()),
    ('cap-neg', lambda: CapNeg(floor=1)),
    ('sig', lambda: Sig()), ('sig-l1', lambda: Sig2(irls=10)),
    ('sig-l1-freeH', lambda: Sig2(irls=10, freeH=True)),
    ('sig-l1-freeH-fpless50', lambda: WithKappa(Sig2(irls=10, freeH=True, ps=np.arange(0.5, 2.3, 0.05)), 50)),
    ('sig-l1-freeH-fpless90', lambda: WithKappa(Sig2(irls=10, freeH=True, ps=np.arange(0.5, 2.3, 0.05)), 90)),
    ('sig-l1-freeH-coarse', lambda: Sig2(irls=10, freeH=True, ps=np.arange(0.9, 2.3, 0.1), ws=[0.05, 0.1, 0.2])),
    ('sig-nl', lambda: SigNL(irls=10)), ('sig-nl-u', lambda: SigNL(irls=10, extra=('u',))),
    ('sig-nl-occ', lambda: SigNL(irls=10, extra=('occ',))), ('sig-nl-d', lambda: SigNL(irls=10, extra=('d',))),
    ('sig-nl-all', lambda: SigNL(irls=10, extra=('u', 'occ', 'd'))),
    ('shared-switch', lambda: SharedQ()),
])
SLOW = OrderedDict([('sig-l1-freeH-split', lambda: SigSplit(irls=10, freeH=True))])


def run(model, label):
    for g in GPUS:
        crossval2(data_path(g), model, g, label=label)


def in_sample(model, label):
    """fitted on every family, scored on the same rows (time only)"""
    for g in GPUS:
        clocks, kern = load(data_path(g))
        P = model.fit(kern, clocks, key=(g, None))
        e = [100 * np.mean([abs(model.predict(P, k, j) / k['ratio'][j] - 1) for k in kern])
             for j in range(len(clocks))]
        print('%-28s %-8s in-sample time per clock, ascending: %s' % (label, g, ' '.join('%.2f' % x for x in e)),
              flush=True)


if __name__ == '__main__':
    args = sys.argv[1:]
    score = run
    if args[:1] == ['--in-sample']:
        score, args = in_sample, args[1:]
    names = args or list(VARIANTS)
    if names == ['list']:
        print('\n'.join(list(VARIANTS) + list(SLOW)))
        sys.exit(0)
    print('variant / gpu / time mean/worst(clock) / energy mean/worst | time per clock, ascending')
    for n in names:
        mk = VARIANTS.get(n) or SLOW.get(n)
        if mk is None:
            sys.exit('unknown variant %s' % n)
        score(mk(), n)
