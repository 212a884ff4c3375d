#include "cli_common.h"

#include <math.h>
#include <stdio.h>

bool cli_is_packed(const char *file) {
    unsigned char magic[8];
    FILE *f = fopen(file, "rb");
    size_t n = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f) fclose(f);
    return ossa_pack_detect(magic, n);
}

ossa_asset *cli_load_asset(const char *cmd, const char *file) {
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = cli_is_packed(file) ? ossa_pack_load_file(file, NULL, &asset, &diag)
                                        : ossa_gltf_load_file(file, NULL, &asset, &diag);
    if (r) {
        fprintf(stderr, "ossa %s: %s: %s (%s)\n", cmd, file, diag.message[0] ? diag.message : "load failed",
                ossa_result_string(r));
        return NULL;
    }
    return asset;
}

void json_put_str(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

void json_put_num(double v) {
    if (isfinite(v)) printf("%.9g", v);
    else printf("null");
}

int cli_no_gl(const char *cmd) {
    fprintf(stderr, "ossa %s: this ossa was built without GL (-DOSSA_BUILD_GL=OFF); "
                    "render, view, demo and crowd need it\n", cmd);
    return 1;
}
