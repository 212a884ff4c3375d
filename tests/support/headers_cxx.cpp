// Compiles every public header as C++ (extern "C" guards, no C-only syntax) and links one
// call. all_headers.h is written by CMake: one #include per include/ossa/*.h, so a new
// header is checked without editing this file; CMake also compiles each header alone, as C
// and as C++ (headers_check/only_<name>.c, .cpp), so each one includes what it needs.
#include "all_headers.h" /* includes ossa/assimp.h: declarations only, compiles without libassimp */
#include <cstdio>

int main() {
    std::printf("ossa %s headers compile as C++\n", ossa_version());
    // the header's inline constructors, as C++ sees them
    ossa_clip_source editable = ossa_source_editable(nullptr), built = ossa_source_built(nullptr);
    if (editable.clip || editable.built || built.clip || built.built) return 1;
    return ossa_result_string(OSSA_OK)[0] == 'O' ? 0 : 1;
}
