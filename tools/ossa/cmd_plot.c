#include <stdio.h>

#include "commands.h"

int cmd_plot(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ossa plot: not implemented yet\n");
    return 1;
}
