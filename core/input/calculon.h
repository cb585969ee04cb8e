/*
 * calculon.h — the Calculon importer on buffers (core/input/calculon.c), for
 * the fuzz harness and tests: names are used in messages only.
 */
#ifndef CX_CORE_CALCULON_H
#define CX_CORE_CALCULON_H

#include "culonx.h"

culonx_status cx_core_calculon_buffers(const char *const names[3], const char *const texts[3],
                                       const size_t lens[3], FILE *out, culonx_error *err);

#endif
