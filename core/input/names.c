/*
 * names.c — the names of the vocabulary's enumerations as they appear in
 * config files, outputs and options: schedules (from each schedule's own
 * descriptor, schedules/list.h), recompute modes and data types.
 */
#include "culonx.h"
#include "core/base/base.h"
#include "schedules/sched.h"

#include <stdio.h>
#include <string.h>

const char *culonx_schedule_name(culonx_schedule s)
{
    const cx_sched_desc *d = cx_sched_get(s);
    return d ? d->name : "?";
}

int culonx_schedule_parse(const char *name, culonx_schedule *out)
{
    const cx_sched_desc *d = cx_sched_find(name);
    if (!d) return -1;
    *out = cx_sched_id(d);
    return 0;
}

int culonx_schedule_count(void)
{
    return cx_sched_count();
}

const char *culonx_recompute_name(culonx_recompute r)
{
    switch (r) {
    case CULONX_RECOMPUTE_NONE:
        return "none";
    case CULONX_RECOMPUTE_SELECTIVE:
        return "selective";
    case CULONX_RECOMPUTE_FULL:
        return "full";
    }
    return "?";
}

const char *culonx_dtype_name(culonx_dtype d)
{
    switch (d) {
    case CULONX_DTYPE_FP16:
        return "fp16";
    case CULONX_DTYPE_BF16:
        return "bf16";
    case CULONX_DTYPE_FP8:
        return "fp8";
    }
    return "?";
}

const char *culonx_did_you_mean(const char *word, const char *const *candidates, int n)
{
    if (!word || !candidates || n <= 0) return NULL;
    int i = cx_core_closest(word, candidates, n);
    return i >= 0 ? candidates[i] : NULL;
}

const char *culonx_attention_name(culonx_attention a)
{
    switch (a) {
    case CULONX_ATTENTION_FLASH:
        return "flash";
    case CULONX_ATTENTION_NAIVE:
        return "naive";
    }
    return "?";
}

const char *culonx_a2a_overlap_name(culonx_a2a_overlap a)
{
    switch (a) {
    case CULONX_A2A_OVERLAP_NONE:
        return "none";
    case CULONX_A2A_OVERLAP_SHARED:
        return "shared";
    case CULONX_A2A_OVERLAP_PIPE:
        return "pipe";
    }
    return "?";
}

const char *culonx_tp_overlap_name(culonx_tp_overlap t)
{
    switch (t) {
    case CULONX_TP_OVERLAP_NONE:
        return "none";
    case CULONX_TP_OVERLAP_PIPE:
        return "pipe";
    case CULONX_TP_OVERLAP_RING:
        return "ring";
    }
    return "?";
}

const char *culonx_zero_impl_name(culonx_zero_impl z)
{
    return z == CULONX_ZERO_IMPL_DEEPSPEED ? "deepspeed" : "fsdp";
}

const char *culonx_offload_names(int offload, char *buf, size_t len)
{
    if (!buf || len == 0) return "";
    buf[0] = '\0';
    static const char *const names[] = {"weights", "activations", "optimizer"};
    size_t k = 0;
    for (int i = 0; i < 3; i++)
        if (offload & (1 << i)) {
            int w = snprintf(buf + k, len - k, "%s%s", k ? "," : "", names[i]);
            if (w < 0 || (size_t)w >= len - k) break;
            k += (size_t)w;
        }
    if (k == 0) snprintf(buf, len, "none");
    return buf;
}
