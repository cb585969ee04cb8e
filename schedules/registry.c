/*
 * registry.c — the list of pipeline schedules by name (execution.schedule).
 * Each schedule lives in its own file and exports one cx_sched_desc (its
 * name, order, formulas and rules); cx_sched_get maps culonx_schedule ids to
 * them. A new schedule: its file, an id in culonx.h and one line here.
 * The schedules and their papers: schedules/README.md.
 */
#include "schedules/sched.h"

#include <string.h>

static const cx_sched_desc *const descs[CULONX_SCHED_COUNT] = {
    [CULONX_SCHED_GPIPE] = &cx_sched_gpipe,
    [CULONX_SCHED_1F1B] = &cx_sched_1f1b,
    [CULONX_SCHED_INTERLEAVED] = &cx_sched_interleaved,
    [CULONX_SCHED_ZB_H1] = &cx_sched_zb_h1,
    [CULONX_SCHED_ZB_H2] = &cx_sched_zb_h2,
    [CULONX_SCHED_ZB_V] = &cx_sched_zb_v,
    [CULONX_SCHED_DUALPIPE_V] = &cx_sched_dualpipev,
};

const char *culonx_schedule_name(culonx_schedule s)
{
    return (unsigned)s < CULONX_SCHED_COUNT ? descs[s]->name : "?";
}

int culonx_schedule_parse(const char *name, culonx_schedule *out)
{
    for (int i = 0; i < CULONX_SCHED_COUNT; i++)
        if (strcmp(name, descs[i]->name) == 0) {
            *out = (culonx_schedule)i;
            return 0;
        }
    return -1;
}

const cx_sched_desc *cx_sched_get(culonx_schedule id)
{
    return (unsigned)id < CULONX_SCHED_COUNT ? descs[id] : NULL;
}

const cx_sched_desc *cx_sched_find(const char *name)
{
    culonx_schedule id;
    return culonx_schedule_parse(name, &id) == 0 ? cx_sched_get(id) : NULL;
}
