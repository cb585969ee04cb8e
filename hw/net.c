/*
 * net.c — collectives and point-to-point transfers on network tiers.
 *
 * Alpha-beta model with efficiency (hw/README.md, "Collectives"): a ring over N
 * ranks moving V bytes on links of bandwidth beta, latency alpha:
 *   all-reduce      2(N-1)/N * V/beta + 2(N-1) alpha
 *   reduce-scatter   (N-1)/N * V/beta +  (N-1) alpha   (all-gather the same)
 *   p2p              V/beta + alpha
 * with beta = tier bandwidth x efficiency. A group that spans nodes runs
 * hierarchically: reduce-scatter inside the node over the r members there,
 * the inter-node ring over N/r nodes on V/r bytes (each GPU its own NIC, as
 * in DGX A100/H100), then all-gather inside the node. The group (N ranks,
 * r of them per node) comes from the parallelism layout (core/layout/layout.c),
 * which knows the rank order; a p2p crosses nodes iff r < 2.
 * All-to-all (expert dispatch/combine; hw/README.md, "Collectives"): each of
 * N ranks sends V/N bytes to every other one, (N-1)/N V in all; with r of
 * them in the node, (r-1)/N V go over tier 0 and (N-r)/N V over the NIC at
 * the same time, so the time is the slower of the two plus (N-1) alpha of
 * the tier the farthest peer is on (NCCL posts one send per peer).
 * Constants (tiers) and sources: hw/README.md, "Collectives".
 */
#include "hw/hw.h"

static double ring_time(const culonx_net_tier *tr, cx_hw_coll kind, double bytes, double n,
                        double *sent)
{
    if (n <= 1) {
        *sent = 0;
        return 0;
    }
    double beta = tr->bw_gbps * 1e9 * (tr->efficiency > 0 ? tr->efficiency : 1.0);
    double steps = n - 1, frac = (n - 1) / n;
    if (kind == CX_HW_ALL_REDUCE) steps *= 2, frac *= 2;
    *sent = frac * bytes;
    return frac * bytes / beta + steps * tr->latency_s;
}

cx_hw_comm cx_hw_coll_cost(const culonx_system *sys, cx_hw_coll kind, double bytes, cx_hw_group g)
{
    cx_hw_comm c = {0, {0, 0}};
    int64_t group = g.size;
    if (bytes <= 0) return c;
    if (kind != CX_HW_P2P && group <= 1) return c;
    const culonx_net_tier *t0 = &sys->tier[0];
    const culonx_net_tier *t1 = sys->ntiers > 1 ? &sys->tier[1] : &sys->tier[0];
    int inter_tier = sys->ntiers > 1 ? 1 : 0;

    if (kind == CX_HW_P2P) {
        int across = g.per_node < 2;
        const culonx_net_tier *tr = across ? t1 : t0;
        int ti = across ? inter_tier : 0;
        double beta = tr->bw_gbps * 1e9 * (tr->efficiency > 0 ? tr->efficiency : 1.0);
        c.time_s = bytes / beta + tr->latency_s;
        c.bytes_tier[ti] = bytes;
        return c;
    }
    int64_t r = g.per_node;
    if (r > group) r = group;
    if (r < 1) r = 1;
    if (kind == CX_HW_ALL_TO_ALL) {
        const double n = (double)group, b0 = bytes * (double)(r - 1) / n;
        const double b1 = bytes * (double)(group - r) / n;
        const culonx_net_tier *far = r < group ? t1 : t0;
        const double e0 = t0->efficiency > 0 ? t0->efficiency : 1.0;
        const double e1 = t1->efficiency > 0 ? t1->efficiency : 1.0;
        const double s0 = b0 / (t0->bw_gbps * 1e9 * e0), s1 = b1 / (t1->bw_gbps * 1e9 * e1);
        c.time_s = (s0 > s1 ? s0 : s1) + (n - 1.0) * far->latency_s;
        c.bytes_tier[0] = b0;
        c.bytes_tier[inter_tier] += b1;
        return c;
    }
    double sent;
    if (r == group) { /* whole group inside one node */
        c.time_s = ring_time(t0, kind, bytes, (double)group, &sent);
        c.bytes_tier[0] = sent;
        return c;
    }
    double nodes = (double)group / (double)r;
    if (r == 1) {
        c.time_s = ring_time(t1, kind, bytes, nodes, &sent);
        c.bytes_tier[inter_tier] = sent;
        return c;
    }
    /* hierarchical: intra RS, inter collective on bytes/r, intra AG */
    double s0, s1, s2;
    double t_intra_rs = ring_time(t0, CX_HW_REDUCE_SCATTER, bytes, (double)r, &s0);
    double t_inter = ring_time(t1, kind, bytes / (double)r, nodes, &s1);
    double t_intra_ag = ring_time(t0, CX_HW_ALL_GATHER, bytes, (double)r, &s2);
    switch (kind) {
    case CX_HW_ALL_REDUCE:
        c.time_s = t_intra_rs + t_inter + t_intra_ag;
        c.bytes_tier[0] = s0 + s2;
        break;
    case CX_HW_REDUCE_SCATTER:
        c.time_s = t_intra_rs + t_inter;
        c.bytes_tier[0] = s0;
        break;
    default: /* all-gather */
        c.time_s = t_inter + t_intra_ag;
        c.bytes_tier[0] = s2;
        break;
    }
    c.bytes_tier[inter_tier] += s1;
    return c;
}

/* Node-limited routing (DeepSeek-V3; core/README.md, "Experts"): the ep
 * group spans G = N / r nodes; each token's k copies go to experts on M' =
 * min(M, k, G) nodes (the router picks the nodes first, then the experts in
 * them); its hidden state crosses the NIC once per remote target node, to
 * the GPU of the same local index there, which forwards it over the
 * scale-up links to the experts' GPUs in that node. Expected per rank, with
 * V = one rank's send buffer of copies and target nodes uniform over G:
 *   NIC        V (M'/k) (G-1)/G        (each target node remote w.p. (G-1)/G)
 *   scale-up   V (r-1)/r               (each copy forwarded inside its node)
 * both at once; time = the slower + (G-1) alpha of the NIC tier + (r-1)
 * alpha of tier 0 (one send per peer). A group inside one node, or M = 0,
 * is the plain all-to-all (cx_hw_coll_cost). */
cx_hw_comm cx_hw_all_to_all_routed(const culonx_system *sys, double bytes, cx_hw_group g,
                                   double fanout, double route_nodes)
{
    int64_t r = g.per_node < 1 ? 1 : g.per_node > g.size ? g.size : g.per_node;
    if (route_nodes <= 0 || fanout <= 0 || r >= g.size || bytes <= 0)
        return cx_hw_coll_cost(sys, CX_HW_ALL_TO_ALL, bytes, g);
    cx_hw_comm c = {0, {0, 0}};
    const double G = (double)g.size / (double)r, rr = (double)r;
    double m = route_nodes < fanout ? route_nodes : fanout;
    if (m > G) m = G;
    const culonx_net_tier *t0 = &sys->tier[0];
    const culonx_net_tier *t1 = sys->ntiers > 1 ? &sys->tier[1] : &sys->tier[0];
    const int inter_tier = sys->ntiers > 1 ? 1 : 0;
    const double b1 = bytes * (m / fanout) * (G - 1.0) / G, b0 = bytes * (rr - 1.0) / rr;
    const double e0 = t0->efficiency > 0 ? t0->efficiency : 1.0;
    const double e1 = t1->efficiency > 0 ? t1->efficiency : 1.0;
    const double s0 = b0 / (t0->bw_gbps * 1e9 * e0), s1 = b1 / (t1->bw_gbps * 1e9 * e1);
    c.time_s = (s0 > s1 ? s0 : s1) + (G - 1.0) * t1->latency_s + (rr - 1.0) * t0->latency_s;
    c.bytes_tier[0] = b0;
    c.bytes_tier[inter_tier] += b1;
    return c;
}
