/*
 * registry.c — the list of pipeline schedules by name (execution.schedule).
 * Each schedule lives in its own file and exports one cx_sched_desc.
 */
#include "schedules/sched.h"

#include <string.h>

static const char *const names[CULONX_SCHED_COUNT] = {
    [CULONX_SCHED_GPIPE] = "gpipe",       [CULONX_SCHED_1F1B] = "1f1b",
    [CULONX_SCHED_INTERLEAVED] = "interleaved", [CULONX_SCHED_ZB_H1] = "zb-h1",
    [CULONX_SCHED_ZB_H2] = "zb-h2",       [CULONX_SCHED_ZB_V] = "zb-v",
    [CULONX_SCHED_DUALPIPE_V] = "dualpipev",
};

const char *culonx_schedule_name(culonx_schedule s)
{
    return (unsigned)s < CULONX_SCHED_COUNT ? names[s] : "?";
}

int culonx_schedule_parse(const char *name, culonx_schedule *out)
{
    for (int i = 0; i < CULONX_SCHED_COUNT; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (culonx_schedule)i;
            return 0;
        }
    return -1;
}

/* Filled in as schedule files land. */
const cx_sched_desc *cx_sched_tmp(culonx_schedule id);
const cx_sched_desc *cx_sched_get(culonx_schedule id)
{
    return cx_sched_tmp(id);
}

const cx_sched_desc *cx_sched_find(const char *name)
{
    culonx_schedule id;
    return culonx_schedule_parse(name, &id) == 0 ? cx_sched_get(id) : NULL;
}
