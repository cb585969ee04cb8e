/*
 * sweep_rows.c — one evaluated sweep candidate as a CSV row or a JSON line
 * (`culonx sweep --all FILE`), formatted into a string buffer so that
 * threads can write blocks in enumeration order.
 */
#include "core/output/report.h"
#include "core/base/base.h"

const char *const cx_core_sweep_csv_header =
    "index,gpus,global_batch,tp,pp,dp,schedule,vp,microbatch,recompute,sequence_parallel,"
    "distributed_optimizer,dp_overlap,clock_mhz,iteration_time_s,tokens_per_s,mfu,"
    "peak_memory_gib,fits,energy_j,cp,attention,tp_overlap,ep,etp,zero,shard_group,offload\n";

void cx_core_sweep_row(cx_sbuf *b, int jsonl, const culonx_sweep_entry *x)
{
    const culonx_execution *e = &x->exec;
    const culonx_result *r = &x->res;
    const int zero = e->zero > 0 ? e->zero : e->distributed_optimizer ? 1 : 0;
    const long long sg = (long long)(e->shard_group > 0 ? e->shard_group : e->dp);
    char off[64];
    culonx_offload_names(e->offload, off, sizeof off);
    if (jsonl)
        cx_core_sbuf_printf(
            b,
            "{\"index\":%llu,\"gpus\":%lld,\"global_batch\":%lld,\"tp\":%lld,\"pp\":%lld,"
            "\"dp\":%lld,\"schedule\":\"%s\",\"vp\":%lld,\"microbatch\":%lld,"
            "\"recompute\":\"%s\",\"sequence_parallel\":%s,\"distributed_optimizer\":%s,"
            "\"dp_overlap\":%s,\"clock_mhz\":%.9g,\"iteration_time_s\":%.17g,"
            "\"tokens_per_s\":%.9g,\"mfu\":%.9g,\"peak_memory_gib\":%.9g,\"fits\":%s,"
            "\"energy_j\":%.17g,\"cp\":%lld,\"attention\":\"%s\",\"tp_overlap\":\"%s\","
            "\"ep\":%lld,\"etp\":%lld,\"zero\":%d,\"shard_group\":%lld,\"offload\":\"%s\"}\n",
            (unsigned long long)x->index, (long long)e->gpus, (long long)e->global_batch,
            (long long)e->tp, (long long)e->pp, (long long)e->dp, culonx_schedule_name(e->schedule),
            (long long)e->vp, (long long)e->microbatch, culonx_recompute_name(e->recompute),
            e->sequence_parallel ? "true" : "false", e->distributed_optimizer ? "true" : "false",
            e->dp_overlap ? "true" : "false", r->clock_mhz, r->iteration_time_s, r->tokens_per_s,
            r->mfu, r->memory.peak_bytes / CX_GIB, r->memory.fits ? "true" : "false",
            r->energy.total_j, (long long)(e->cp > 1 ? e->cp : 1),
            culonx_attention_name(e->attention), culonx_tp_overlap_name(e->tp_overlap),
            (long long)(e->ep > 1 ? e->ep : 1), (long long)(e->etp > 1 ? e->etp : 1), zero, sg,
            off);
    else
        cx_core_sbuf_printf(
            b,
            "%llu,%lld,%lld,%lld,%lld,%lld,%s,%lld,%lld,%s,%d,%d,%d,%.9g,%.17g,%.9g,%.9g,"
            "%.9g,%d,%.17g,%lld,%s,%s,%lld,%lld,%d,%lld,%s\n",
            (unsigned long long)x->index, (long long)e->gpus, (long long)e->global_batch,
            (long long)e->tp, (long long)e->pp, (long long)e->dp, culonx_schedule_name(e->schedule),
            (long long)e->vp, (long long)e->microbatch, culonx_recompute_name(e->recompute),
            e->sequence_parallel, e->distributed_optimizer, e->dp_overlap, r->clock_mhz,
            r->iteration_time_s, r->tokens_per_s, r->mfu, r->memory.peak_bytes / CX_GIB,
            r->memory.fits, r->energy.total_j, (long long)(e->cp > 1 ? e->cp : 1),
            culonx_attention_name(e->attention), culonx_tp_overlap_name(e->tp_overlap),
            (long long)(e->ep > 1 ? e->ep : 1), (long long)(e->etp > 1 ? e->etp : 1), zero, sg,
            off);
}
