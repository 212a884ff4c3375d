#include <stdio.h>

#include "commands.h"

int cmd_view(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ossa view: not implemented yet\n");
    return 1;
}
