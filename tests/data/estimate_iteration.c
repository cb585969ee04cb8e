/*
 * estimate_iteration.c — the smallest libculonx client: loads a run file
 * (schema built into the library) and prints its closed-form iteration time
 * in the JSON report's format (%.9g). tests/install_tree.sh builds it against
 * the installed tree with `pkg-config --cflags --libs culonx` and through
 * find_package(culonx) (tests/data/find_package/).
 */
#include <culonx.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RUN.xml\n", argv[0]);
        return 2;
    }
    culonx_run run;
    culonx_result res;
    culonx_error err;
    if (culonx_run_load(argv[1], NULL, 0, NULL, &run, &err) != CULONX_OK ||
        culonx_estimate(&run, &res, &err) != CULONX_OK) {
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    printf("%.9g\n", res.iteration_time_s);
    return 0;
}
