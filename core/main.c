/*
 * main.c — the culonx command line. The only file that reads argv or prints.
 */
#include "culonx.h"

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 0;
}
