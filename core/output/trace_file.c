/*
 * trace_file.c — culonx_trace_save: the Chrome trace of trace.c written to a
 * path through a temporary file (PATH.tmp.PID) renamed into place, so a
 * failed or interrupted write never leaves a half trace under the name.
 * A name ending in ".gz" is gzip-compressed with zlib (level 6) through a
 * glibc cookie stream, so trace.c keeps writing to a FILE *; the stream also
 * counts the uncompressed bytes for culonx_trace_info.bytes.
 */
#define _GNU_SOURCE
#include "core/base/base.h"
#include "culonx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

typedef struct {
    FILE *plain;
    gzFile gz;
    int64_t bytes;
    int failed;
} sink;

static ssize_t sink_write(void *c, const char *buf, size_t n)
{
    sink *k = c;
    k->bytes += (int64_t)n;
    size_t done = 0;
    while (done < n) {
        size_t part = n - done > (1u << 30) ? (1u << 30) : n - done;
        size_t w = k->gz
                       ? (size_t)(gzwrite(k->gz, buf + done, (unsigned)part) > 0 ? (size_t)part : 0)
                       : fwrite(buf + done, 1, part, k->plain);
        if (w != part) {
            k->failed = 1;
            return -1;
        }
        done += w;
    }
    return (ssize_t)n;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

culonx_status culonx_trace_save(const char *path, const culonx_run *run,
                                const culonx_trace_options *opt, culonx_trace_info *info,
                                culonx_error *err)
{
    cx_core_error_clear(err);
    if (info) memset(info, 0, sizeof *info);
    if (!path || !run || !opt)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_trace_save: NULL argument");
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return cx_core_fail(err, CULONX_EINPUT, path, 0, "path too long");
    sink k = {0};
    if (ends_with(path, ".gz")) {
        k.gz = gzopen(tmp, "wb6");
        if (!k.gz)
            return cx_core_fail(err, CULONX_EINPUT, path, 0, "cannot write: %s", strerror(errno));
    } else if (!(k.plain = fopen(tmp, "wb"))) {
        return cx_core_fail(err, CULONX_EINPUT, path, 0, "cannot write: %s", strerror(errno));
    }
    cookie_io_functions_t io = {.write = sink_write};
    FILE *f = fopencookie(&k, "w", io);
    culonx_status st = CULONX_OK;
    culonx_trace_info in = {0};
    if (!f) {
        st = cx_core_fail(err, CULONX_EINTERNAL, path, 0, "out of memory");
    } else {
        st = culonx_trace_write_opts(f, run, opt, &in, err);
        if (fclose(f) != 0 && st == CULONX_OK) k.failed = 1;
    }
    int close_bad = k.gz ? gzclose(k.gz) != Z_OK : fclose(k.plain) != 0;
    if (st == CULONX_OK && (k.failed || close_bad))
        st = cx_core_fail(err, CULONX_EINPUT, path, 0, "write failed: %s", strerror(errno));
    if (st == CULONX_OK && rename(tmp, path) != 0)
        st = cx_core_fail(err, CULONX_EINPUT, path, 0, "cannot write: %s", strerror(errno));
    if (st != CULONX_OK) {
        remove(tmp);
        return st;
    }
    in.bytes = k.bytes;
    if (info) *info = in;
    return CULONX_OK;
}
