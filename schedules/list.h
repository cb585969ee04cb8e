/*
 * list.h — the registry of pipeline schedules: one line per schedule, in id
 * order (a schedule's culonx_schedule id is its position here; the named
 * ids of culonx.h are the first seven). Each line names the descriptor
 * cx_sched_<file> exported by schedules/<file>.c. Included by sched.h (the
 * extern declarations) and registry.c (the table) with CX_SCHEDULE defined.
 * A new schedule is its file plus one line at the end of this list.
 */
CX_SCHEDULE(gpipe)
CX_SCHEDULE(1f1b)
CX_SCHEDULE(interleaved)
CX_SCHEDULE(zb_h1)
CX_SCHEDULE(zb_h2)
CX_SCHEDULE(zb_v)
CX_SCHEDULE(dualpipev)
