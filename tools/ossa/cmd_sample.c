#include <stdio.h>

#include "commands.h"

int cmd_sample(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ossa sample: not implemented yet\n");
    return 1;
}
