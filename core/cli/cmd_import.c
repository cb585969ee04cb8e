/*
 * cmd_import.c — `culonx import calculon APP.json EXE.json SYS.json -o
 * RUN.xml`: a run file from Calculon's three JSON files
 * (culonx_import_calculon), written through a temporary file renamed into
 * place. It takes three positional arguments, so it parses its own command
 * line (main.c hands it argv) with the same messages and exit codes.
 */
#include "core/cli/cli.h"

#include <string.h>

static const char *const usage_text =
    "usage: culonx import calculon APP.json EXE.json SYS.json -o RUN.xml\n"
    "Converts Calculon's application, execution and system JSON files into a culonx run\n"
    "file (model and system inline), e.g.\n"
    "  culonx import calculon megatron-1T.json 3072_t8_p64_d6_mbs1_full.json "
    "a100_80g.json -o run.xml\n"
    "  culonx estimate run.xml\n"
    "\noptions:\n"
    "  -o, --output FILE           run file to write (- for stdout)\n"
    "  -h, --help                  this text\n";

int cx_cli_import(int argc, char **argv)
{
    const char *pos[4] = {NULL, NULL, NULL, NULL}, *out_path = NULL;
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return CX_EXIT_OK;
        }
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) return cx_cli_usage_error("import", "option %s needs a value", a);
            out_path = argv[++i];
        } else if (!strncmp(a, "--output=", 9)) {
            out_path = a + 9;
        } else if (a[0] == '-' && a[1]) {
            return cx_cli_usage_error("import", "unknown option '%s'", a);
        } else if (npos < 4) {
            pos[npos++] = a;
        } else {
            return cx_cli_usage_error("import", "unexpected argument '%s'", a);
        }
    }
    if (npos < 1) return cx_cli_usage_error("import", "missing FORMAT (calculon)%s", "");
    if (strcmp(pos[0], "calculon"))
        return cx_cli_usage_error("import", "unknown format '%s' (known: calculon)", pos[0]);
    if (npos != 4)
        return cx_cli_usage_error("import", "calculon needs APP.json EXE.json SYS.json%s", "");
    if (!out_path || !*out_path) return cx_cli_usage_error("import", "missing -o RUN.xml%s", "");
    culonx_error err;
    if (!strcmp(out_path, "-")) {
        culonx_status st = culonx_import_calculon(pos[1], pos[2], pos[3], stdout, &err);
        return st == CULONX_OK ? CX_EXIT_OK : cx_cli_fail(&err, st);
    }
    cx_cli_out out;
    const char *inputs[3] = {pos[1], pos[2], pos[3]};
    int rc = cx_cli_out_open(&out, out_path, inputs, 3);
    if (rc) return rc;
    culonx_status st = culonx_import_calculon(pos[1], pos[2], pos[3], out.f, &err);
    return cx_cli_out_close(&out, st == CULONX_OK ? CX_EXIT_OK : cx_cli_fail(&err, st));
}
