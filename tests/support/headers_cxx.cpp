// Compiles every public header as C++ (extern "C" guards) and links one call.
#include <ossa/ossa.h>
#include <ossa/gl.h>
#include <ossa/assimp.h> /* declarations only: compiles without libassimp */
#include <ossa/import.h>
#include <cstdio>

int main() {
    std::printf("ossa %s headers compile as C++\n", ossa_version());
    // the header's inline constructors, as C++ sees them
    ossa_clip_source editable = ossa_source_editable(nullptr), built = ossa_source_built(nullptr);
    if (editable.clip || editable.built || built.clip || built.built) return 1;
    return ossa_result_string(OSSA_OK)[0] == 'O' ? 0 : 1;
}
