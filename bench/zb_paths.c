/*
 * zb_paths.c — critical paths of the ZB-H1 and ZB-H2 replays and the exact
 * form found from them (issue 13; core/eval/replay_formula_zb.c;
 * core/README.md, "Exact formula", ZB-H1 and ZB-H2). An investigation tool,
 * not a test: it plays the orders (schedules/zb_h1.c, zb_h2.c) with its own
 * copy of the replay's timing rule (core/eval/replay_step.h, blocking p2p:
 * a sending item frees its stage at end + P, so it acts as one of duration
 * d + P), records which operand won each maximum, and
 *   - `trace P M F0 B0 W0 F B W FL BL WL PP [h2]`: prints the critical path
 *     to the last item of every stage as segments "sS:Xa..Yb" (stage S runs
 *     its order from item X of microbatch a to item Y of microbatch b);
 *   - `check N SEED [h2] [loose] [tight=D] [cert0]` (default): N random
 *     draws, p in {2..128}, m in [(h+1)p, (h+16)p), middle stages equal,
 *     stage 0 and p−1 each at least the middle in F, B and W (`loose`: from
 *     0.5x / 0.6x of it), P in [0, F/2] (0 for a third), kept when the last
 *     stage is the bottleneck (c_L >= c_0, c_L >= c_mid, c = F' + B' + W per
 *     cycle); `tight=D`: one draw in two gets stage 0 the last stage's F and
 *     B and its W short by D·(F + B), one in four P near the end stages'
 *     excess too (c_L ~ c_mid). Each draw's fill is certified as
 *     replay_formula_zb.c does (`cert0`: stage 0 only), extended until it
 *     is (else counted as declined), and the form compared with the play per
 *     stage (relative to the stage's end): prints the misses (with their
 *     paths for p <= 16), the last microbatch stage p−1 waited for, the
 *     counts and the worst difference.
 * The form (replay_formula_zb.c has the derivation), with the fill's tokens
 * read from the full play here: Y = end (+P) of B_J on stage p−1;
 *   free_{p−1} = Y + (F'_L + B'_L)(m − 1 − J) + W_L·(W items after B_J);
 *   free_s = max( tok_{s+1}(B_j) + Suf_s(j), j <= J;
 *                 Y + (stage p−1's items B_J..B_j) + Σ_{i=s+1}^{p−2} B'_i
 *                   + Suf_s(j), j > J at the breakpoints ),
 * Suf_s(j) the rest of stage s's order from B_j.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KF, KB, KW, MAXP = 128 };

typedef struct {
    int kind, mb;
} item;

/* 1: ZB-H1 (w = p − s warm-up forwards, W lagged by s); 2: ZB-H2 (w =
 * 2(p − s) − 1, lag 2s): schedules/zb_h1.c, zb_h2.c */
static int H = 1;
static double tight_d = 1e-9;
static int stage0_only;

typedef struct {
    int p, m, len[MAXP];
    item *ord[MAXP];
    double *tok[MAXP];
    int *from_s[MAXP], *from_k[MAXP]; /* winner of the item's maximum */
    int *pos[3][MAXP];                /* index of (kind, mb) in the order */
} play_t;

static void build(play_t *g, int p, int m)
{
    g->p = p, g->m = m;
    for (int s = 0; s < p; s++) {
        const int w0 = H * (p - s) - (H - 1), lag = H * s;
        int w = w0 < m ? w0 : m, n = 0, nf = 0;
        g->ord[s] = realloc(g->ord[s], sizeof(item) * 3 * (size_t)m);
        for (; nf < w; nf++)
            g->ord[s][n++] = (item){KF, nf};
        for (int j = 0; j < m; j++) {
            g->ord[s][n++] = (item){KB, j};
            if (j - lag >= 0) g->ord[s][n++] = (item){KW, j - lag};
            if (nf < m) g->ord[s][n++] = (item){KF, nf++};
        }
        for (int j = m - lag > 0 ? m - lag : 0; j < m; j++)
            g->ord[s][n++] = (item){KW, j};
        g->len[s] = n;
        g->tok[s] = realloc(g->tok[s], sizeof(double) * (size_t)n);
        g->from_s[s] = realloc(g->from_s[s], sizeof(int) * (size_t)n);
        g->from_k[s] = realloc(g->from_k[s], sizeof(int) * (size_t)n);
        for (int k = 0; k < 3; k++)
            g->pos[k][s] = realloc(g->pos[k][s], sizeof(int) * (size_t)m);
        for (int k = 0; k < n; k++)
            g->pos[g->ord[s][k].kind][s][g->ord[s][k].mb] = k;
    }
}

/* the replay's rule with blocking sends; F, B, W per stage, no P */
static int play(play_t *g, const double *F, const double *B, const double *W, double P)
{
    const int p = g->p;
    int at[MAXP] = {0}, left = 0;
    double fr[MAXP] = {0};
    for (int s = 0; s < p; s++)
        left += g->len[s];
    while (left) {
        int moved = 0;
        for (int s = 0; s < p; s++)
            while (at[s] < g->len[s]) {
                const int k = at[s];
                const item x = g->ord[s][k];
                int ds = -1, dk = -1, send = 0;
                double d;
                if (x.kind == KF) {
                    d = F[s], send = s < p - 1;
                    if (s > 0) ds = s - 1, dk = g->pos[KF][s - 1][x.mb];
                } else if (x.kind == KB) {
                    d = B[s], send = s > 0;
                    if (s < p - 1) ds = s + 1, dk = g->pos[KB][s + 1][x.mb];
                } else {
                    d = W[s];
                }
                if (ds >= 0 && at[ds] <= dk) break;
                double start = fr[s];
                g->from_s[s][k] = s, g->from_k[s][k] = k - 1;
                if (ds >= 0 && g->tok[ds][dk] > fr[s])
                    start = g->tok[ds][dk], g->from_s[s][k] = ds, g->from_k[s][k] = dk;
                g->tok[s][k] = fr[s] = start + d + (send ? P : 0);
                at[s]++, left--, moved = 1;
            }
        if (!moved) return 0;
    }
    return 1;
}

static void trace(const play_t *g, int s)
{
    int seg_s[4 * MAXP + 8], seg_a[4 * MAXP + 8], seg_b[4 * MAXP + 8], ns = 0;
    int cs = s, k = g->len[s] - 1, ce = k;
    const char *kn = "FBW";
    for (;;) {
        const int ps = g->from_s[cs][k], pk = g->from_k[cs][k];
        if (ps == cs && pk >= 0) {
            k = pk;
            continue;
        }
        if (ns < 4 * MAXP + 8) seg_s[ns] = cs, seg_a[ns] = k, seg_b[ns] = ce, ns++;
        if (pk < 0) break;
        cs = ps, k = pk, ce = pk;
    }
    printf("stage %d ends at %.6f, %d segments:", s, g->tok[s][g->len[s] - 1], ns);
    for (int i = ns - 1; i >= 0; i--) {
        const item a = g->ord[seg_s[i]][seg_a[i]], b = g->ord[seg_s[i]][seg_b[i]];
        printf(" s%d:%c%d..%c%d", seg_s[i], kn[a.kind], a.mb, kn[b.kind], b.mb);
    }
    printf("\n");
}

/* the form above for stage s (the fill's tokens read from g's play) */
/* J: the fill's last cycle (p − 1 for ZB-H1); stage p−1 runs without a
 * gap after its B_J */
static int fill_J = -1; /* >= 0: set by check (the certified fill) */

static int fill_end(int p)
{
    return fill_J >= 0 ? fill_J : H * p - 1;
}

/* the candidates' j: every breakpoint of the piecewise linear drain */
static double form(const play_t *g, int s, const double *F, const double *B, const double *W,
                   double P)
{
    const int p = g->p, m = g->m, J = fill_end(p), L = p - 1, lagl = H * L;
    const double fl = F[L], bl = B[L] + (p > 1 ? P : 0);
    const double y = g->tok[L][g->pos[KB][L][J]];
#define NW(j, lag) ((j) > (lag) ? (j) - (lag) : 0) /* W before B_j */
    if (s == L) return y + (m - 1 - J) * (fl + bl) + (m - NW(J, lagl)) * W[L];
    const int w = H * (p - s) - (H - 1), lag = H * s;
    const double fp = F[s] + P, bp = B[s] + (s > 0 ? P : 0);
    double desc = 0, best = -HUGE_VAL;
    for (int i = s + 1; i <= p - 2; i++)
        desc += B[i] + P;
#define SUF(j) ((m - w - (j) > 0 ? m - w - (j) : 0) * fp + (m - (j)) * bp + (m - NW(j, lag)) * W[s])
    for (int j = 0; j <= J && j < m; j++)
        best = fmax(best, g->tok[s + 1][g->pos[KB][s + 1][j]] + SUF(j));
    const int br[] = {J + 1,   lagl - 1,  lagl,  lagl + 1,  lag - 1, lag,
                      lag + 1, m - w - 1, m - w, m - w + 1, m - 1};
    for (int i = 0; i < (int)(sizeof br / sizeof *br); i++) {
        const int j = br[i];
        if (j <= J || j >= m) continue;
        const double tb = y + (j - J) * (fl + bl) + (NW(j, lagl) - NW(J, lagl)) * W[L];
        best = fmax(best, tb + desc + SUF(j));
    }
#undef SUF
#undef NW
    return best;
}

/* after the fill no stage s < p−1 is so far behind (beta_s: its free at the
 * end of cycle J past the arrival of B_{J+1} by the straight descent) that
 * its next F makes stage s+1 wait: beta_s <= c_L − c_s + W_{s+1} */
static int certified(const play_t *g, const double *F, const double *B, const double *W, double P)
{
    const int p = g->p, J = fill_end(p), L = p - 1;
    const double cl = F[L] + B[L] + P + W[L], y = g->tok[L][g->pos[KB][L][J]];
    double arr = y + cl; /* B_{J+1} leaves stage p−1 */
    for (int s = L - 1; s >= 0; s--) {
        const int w = H * (p - s) - (H - 1);
        const double cs = F[s] + P + B[s] + (s > 0 ? P : 0) + W[s];
        const double beta = g->tok[s][g->pos[KF][s][J + w]] - arr;
        if ((s == 0 || !stage0_only) && beta > cl - cs + W[s + 1]) return 0;
        arr += B[s] + (s > 0 ? P : 0);
    }
    return 1;
}

static uint64_t rng = 88172645463325252ull;

static double uni(double lo, double hi)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static int check(int n, int loose, int tight)
{
    static const int pps[] = {2, 3, 4, 5, 8, 12, 16, 32, 64, 128};
    static play_t g;
    int ext = 0, ext_p = 0, declined = 0, kept = 0, missed = 0, above = 0, shown = 0, late = -1,
        late_p = 0;
    double worst = 0;
    for (int t = 0; t < n; t++) {
        const int p = pps[t % 10], m = (H + 1) * p + (int)uni(0, 14.99 * p);
        double F[MAXP], B[MAXP], W[MAXP];
        const double f = uni(0.5, 1.5), b = f * uni(0.8, 2.2), w = f * uni(0.2, 1.2);
        double P = t % 3 == 0 ? 0 : f * uni(0, 0.5);
        for (int s = 0; s < p; s++)
            F[s] = f, B[s] = b, W[s] = w;
        const double hi0 = t % 2 ? 2 : 1.2, hil = t % 4 < 2 ? 2.5 : 1.3;
        const double lo0 = loose ? 0.5 : 1, lol = loose ? 0.6 : 1;
        F[0] *= uni(lo0, hi0), B[0] *= uni(lo0, hi0), W[0] *= uni(lo0, hi0);
        F[p - 1] *= uni(lol, hil), B[p - 1] *= uni(lol, hil), W[p - 1] *= uni(lol, hil);
        if (tight && t % 2 && p > 2) {
            /* stage 0 within tight_d of the last stage's cycle; one in two
             * draws P near the end stages' excess too (c_L ~ c_mid) */
            F[0] = F[p - 1], B[0] = B[p - 1], W[0] = W[p - 1] - tight_d * (F[0] + B[0]);
            const double ex = F[p - 1] + B[p - 1] + W[p - 1] - f - b - w;
            if (t % 4 == 1) P = ex * (1 - uni(0, 1e-6));
        }
        const double cl = F[p - 1] + B[p - 1] + W[p - 1] + P, c0 = F[0] + P + B[0] + W[0],
                     cm = f + b + w + 2 * P;
        if (!(cl >= c0 && (p <= 2 || cl >= cm))) continue;
        build(&g, p, m);
        if (!play(&g, F, B, W, P)) return 1;
        fill_J = -1;
        const int j0 = fill_end(p);
        for (fill_J = j0; fill_J + 2 * H * p < m && !certified(&g, F, B, W, P); fill_J++)
            ;
        if (fill_J + 2 * H * p >= m) {
            declined++;
            continue;
        }
        if (fill_J - j0 > ext) ext = fill_J - j0, ext_p = p;
        kept++;
        int bad = 0, lw = -1;
        for (int k = 1; k < g.len[p - 1]; k++)
            if (g.from_s[p - 1][k] != p - 1) lw = g.ord[p - 1][k].mb;
        if (lw > late) late = lw, late_p = p;
        for (int s = 0; s < p; s++) {
            const double r = g.tok[s][g.len[s] - 1], x = form(&g, s, F, B, W, P);
            const double d = fabs(r - x) / r;
            if (x > r * (1 + 1e-12)) above++;
            if (d > worst) worst = d;
            if (d > 1e-12 && !bad) {
                bad = 1, missed++;
                if (shown++ < 5) {
                    printf("miss: p %d m %d stage %d off %.3g; F %.4f/%.4f/%.4f B %.4f/%.4f/%.4f "
                           "W %.4f/%.4f/%.4f P %.4f\n",
                           p, m, s, d, F[0], f, F[p - 1], B[0], b, B[p - 1], W[0], w, W[p - 1], P);
                    if (p <= 16) trace(&g, s);
                }
            }
        }
    }
    printf("stage p-1 waits last at microbatch %d (p %d)\n", late, late_p);
    printf("declined by the certificate: %d; fill extended by up to %d cycles (p %d)\n", declined,
           ext, ext_p);
    printf("draws %d (last stage the bottleneck), form off by > 1e-12: %d, above the play: %d, "
           "worst %.3g\n",
           kept, missed, above, worst);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "trace")) {
        if (argc < 14) {
            fprintf(stderr, "usage: bench_zb_paths trace P M F0 B0 W0 F B W FL BL WL PP [h2]\n");
            return 2;
        }
        if (argc > 14 && !strcmp(argv[14], "h2")) H = 2;
        const int p = atoi(argv[2]), m = atoi(argv[3]);
        if (p < 2 || p > MAXP || m < 1) return 2;
        double F[MAXP], B[MAXP], W[MAXP];
        for (int s = 0; s < p; s++) {
            const int c = s == 0 ? 4 : s == p - 1 ? 10 : 7;
            F[s] = atof(argv[c]), B[s] = atof(argv[c + 1]), W[s] = atof(argv[c + 2]);
        }
        static play_t g;
        build(&g, p, m);
        if (!play(&g, F, B, W, atof(argv[13]))) return 1;
        for (int s = p - 1; s >= 0; s--)
            trace(&g, s);
        return 0;
    }
    const int n = argc > 2 ? atoi(argv[2]) : 4000;
    if (argc > 3) rng ^= (uint64_t)strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ull;
    int loose = 0, tight = 0;
    for (int i = 4; i < argc; i++) {
        loose |= !strcmp(argv[i], "loose"), tight |= !strcmp(argv[i], "tight");
        H = !strcmp(argv[i], "h2") ? 2 : H;
        stage0_only |= !strcmp(argv[i], "cert0");
        if (!strncmp(argv[i], "tight=", 6)) tight = 1, tight_d = atof(argv[i] + 6);
    }
    return check(n, loose, tight);
}
