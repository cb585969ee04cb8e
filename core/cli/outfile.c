/*
 * outfile.c — output files that are never lost or damaged. A command writes
 * into a temporary file beside the target (same directory, so the final
 * rename(2) is atomic) and renames it into place only when everything
 * succeeded; a failing command, or one interrupted by SIGINT, SIGTERM or
 * SIGHUP, removes its temporary file and leaves the previous target
 * untouched (after SIGKILL the previous target is untouched too; only a
 * stale "*.tmp-culonx-XXXXXX" file can remain). An output that names one of
 * the command's inputs (same device and inode, or the same path) is refused
 * before anything is written. "-" is standard output (no temporary file).
 */
#define _POSIX_C_SOURCE 200809L
#include "core/cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* temporary files to remove on a fatal signal (async-signal-safe unlink) */
#define MAX_PENDING 4
static char pending[MAX_PENDING][4096];
static volatile sig_atomic_t npending;
static int handlers_installed;

static void on_signal(int sig)
{
    for (int i = 0; i < npending && i < MAX_PENDING; i++)
        if (pending[i][0]) unlink(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    if (handlers_installed) return;
    handlers_installed = 1;
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

static void forget(const char *tmp)
{
    for (int i = 0; i < npending && i < MAX_PENDING; i++)
        if (!strcmp(pending[i], tmp)) pending[i][0] = '\0';
}

static int same_file(const char *a, const char *b)
{
    if (!strcmp(a, b)) return 1;
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cx_cli_out_check(const char *path, const char *const *inputs, int ninputs, int dir_ok)
{
    for (int i = 0; i < ninputs; i++)
        if (inputs[i] && same_file(path, inputs[i])) {
            fprintf(stderr, "%s: error: refusing to overwrite an input of this command\n", path);
            return CX_EXIT_INPUT;
        }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !(dir_ok && S_ISDIR(st.st_mode))) {
        fprintf(stderr, "%s: error: not a regular file; refusing to write there\n", path);
        return CX_EXIT_INPUT;
    }
    return CX_EXIT_OK;
}

/* Blocks (block = 1) or restores the fatal signals around a change of the
 * pending list. */
static void signals_blocked(int block, sigset_t *old)
{
    if (!block) {
        sigprocmask(SIG_SETMASK, old, NULL);
        return;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* Adds a path to the list removed on a fatal signal (signals blocked). */
static void add_pending(const char *tmp_path)
{
    size_t n = strlen(tmp_path);
    if (n < sizeof pending[0] && npending < MAX_PENDING) {
        memcpy(pending[npending], tmp_path, n + 1);
        npending = npending + 1;
    }
}

void cx_cli_out_guard(const char *tmp_path)
{
    install_handlers();
    sigset_t old;
    signals_blocked(1, &old);
    add_pending(tmp_path);
    signals_blocked(0, &old);
}

void cx_cli_out_unguard(const char *tmp_path)
{
    forget(tmp_path);
}

int cx_cli_out_open(cx_cli_out *o, const char *path, const char *const *inputs, int ninputs)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return CX_EXIT_OK;
    }
    int rc = cx_cli_out_check(path, inputs, ninputs, 0);
    if (rc) return rc;
    int n = snprintf(o->tmp, sizeof o->tmp, "%s.tmp-culonx-XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof o->tmp) {
        fprintf(stderr, "%s: error: output path too long\n", path);
        return CX_EXIT_INPUT;
    }
    install_handlers();
    /* create and register the temporary file with the signals blocked, so
     * that a signal never leaves it behind */
    sigset_t old;
    signals_blocked(1, &old);
    int fd = mkstemp(o->tmp);
    if (fd >= 0) add_pending(o->tmp);
    signals_blocked(0, &old);
    if (fd < 0) {
        fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
        return CX_EXIT_INPUT;
    }
    mode_t um = umask(0); /* mkstemp makes 0600; outputs are ordinary files */
    umask(um);
    fchmod(fd, (mode_t)(0666 & ~um));
    o->f = fdopen(fd, "w+"); /* readable too: sweep --report reads the rows back */
    if (!o->f) {
        close(fd);
        unlink(o->tmp);
        forget(o->tmp);
        fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
        return CX_EXIT_INPUT;
    }
    return CX_EXIT_OK;
}

int cx_cli_out_close(cx_cli_out *o, int rc)
{
    if (!o->f) return rc;
    if (o->f == stdout) {
        o->f = NULL;
        if (fflush(stdout) != 0 && rc == CX_EXIT_OK) {
            fprintf(stderr, "culonx: error writing output: %s\n", strerror(errno));
            return CX_EXIT_INPUT;
        }
        return rc;
    }
    int werr = ferror(o->f) || fflush(o->f) != 0;
    int err_no = errno;
    if (fclose(o->f) != 0 && !werr) werr = 1, err_no = errno;
    o->f = NULL;
    if (rc == CX_EXIT_OK && werr) {
        fprintf(stderr, "%s: error: cannot write: %s\n", o->path, strerror(err_no));
        rc = CX_EXIT_INPUT;
    }
    if (rc == CX_EXIT_OK && rename(o->tmp, o->path) != 0) {
        fprintf(stderr, "%s: error: cannot replace: %s\n", o->path, strerror(errno));
        rc = CX_EXIT_INPUT;
    }
    if (rc != CX_EXIT_OK) unlink(o->tmp);
    forget(o->tmp);
    return rc;
}

void cx_cli_run_inputs(const culonx_run *run, const char *out[6])
{
    const char *src[6] = {run->path,        run->model_at.file, run->system_at.file,
                          run->gpu_at.file, run->power_at.file, run->network_at.file};
    for (int i = 0; i < 6; i++)
        out[i] = src[i] && src[i][0] && strcmp(src[i], "--set") ? src[i] : NULL;
}
