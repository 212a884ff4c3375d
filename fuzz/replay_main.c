/* Plain driver for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput once
 * per file named on the command line. scripts/fuzz.sh --valgrind links it with a
 * non-sanitized libossa and replays the corpora under valgrind memcheck, which sees what
 * ASan does not (reads of uninitialised memory). Not built by CMake (not fuzz_*.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
        uint8_t *b = malloc(n ? (size_t)n : 1);
        if (fread(b, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(b); continue; }
        fclose(f);
        LLVMFuzzerTestOneInput(b, (size_t)n);
        free(b);
    }
    printf("replayed %d inputs\n", argc - 1);
    return 0;
}
