#include <stdio.h>

#include "commands.h"

int cmd_render(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ossa render: not implemented yet\n");
    return 1;
}
