/*
 * registry.c — the pipeline schedules by id and by name
 * (execution.schedule). Each schedule lives in its own file and exports one
 * cx_sched_desc (its name, order, formulas and rules); schedules/list.h
 * lists them, and a schedule's id is its position there. A new schedule:
 * its file and one line in schedules/list.h. The public names
 * (culonx_schedule_name, culonx_schedule_parse, culonx_schedule_count) are
 * core/input/names.c.
 * The schedules and their papers: schedules/README.md.
 */
#include "schedules/sched.h"

#include <string.h>

static const cx_sched_desc *const descs[] = {
#define CX_SCHEDULE(file) &cx_sched_##file,
#include "schedules/list.h"
#undef CX_SCHEDULE
};

#define NDESCS ((int)(sizeof descs / sizeof descs[0]))

_Static_assert(NDESCS <= CULONX_SCHED_MAX, "more schedules than CULONX_SCHED_MAX");

int cx_sched_count(void)
{
    return NDESCS;
}

const cx_sched_desc *cx_sched_get(culonx_schedule id)
{
    return (unsigned)id < (unsigned)NDESCS ? descs[id] : NULL;
}

culonx_schedule cx_sched_id(const cx_sched_desc *d)
{
    for (int i = 0; i < NDESCS; i++)
        if (descs[i] == d) return (culonx_schedule)i;
    return (culonx_schedule)-1;
}

const cx_sched_desc *cx_sched_find(const char *name)
{
    for (int i = 0; i < NDESCS; i++)
        if (strcmp(name, descs[i]->name) == 0) return descs[i];
    return NULL;
}
