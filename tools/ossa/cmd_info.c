/* ossa info FILE [--json]: the node tree (with the skins each node is a joint of),
 * skins, meshes (vertex counts, influences, morph targets), clips (duration,
 * channels, interpolations) and the loader's warnings. --json prints one object:
 * {"file", "scene", "metres_per_unit" (the length of a model unit as the file declares it,
 *  glTF: 1; 0 = not declared), "nodes": [{"index","name","parent","children","mesh","skin",
 *  "joint","joint_of":[skin...],"matrix","matrix_not_trs"}], "skins": [{"index",
 *  "name","joints":[node...],"root"}], "meshes": [{"index","name","primitives",
 *  "targets"}], "primitives": [{"node","mesh","primitive","vertices","indices",
 *  "influences","skin","targets"}], "clips": [{"index","name","start","end",
 *  "duration","tracks","channels":{"translation","rotation","scale","weights"},
 *  "interpolations":[...]}], "materials": [{"index","name","base_color":[r,g,b,a],
 *  "texture": null | {"image","texcoord"}, "alpha_mode":"OPAQUE"|"MASK"|"BLEND",
 *  "alpha_cutoff","double_sided"}], "images": [{"index","name","uri" ("" when embedded),
 *  "mime_type","bytes","width","height" (pixels from the PNG/JPEG header, null when unknown)}],
 *  "warnings": [...]}
 * The importers' warnings include vertices whose skin weights did not sum to 1 (renormalised),
 * with their count, per primitive.
 * A packed .ossa file has built clips only; each clip object then carries "index",
 * "name", "start", "end", "duration", "tracks", "weight_tracks", "lossless",
 * "built_bytes", "precision" (0 when lossless), "character_height" (the skeleton's bind-pose
 * height, model units), "precision_of_height" (precision / that height) and "max_error" (model
 * units, the joint shells' error as the builder measured it) and "report": the build report
 * `ossa pack` stored (null when the file has none; see cli_print_clip_report_json: the precision,
 * and the max skinned-vertex error with its mesh, vertex, joint and time). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#include "cli_common.h"
#include "commands.h"
#include "image_decode.h"

typedef struct clip_stats {
    uint32_t channels[4];
    bool interp[4];
} clip_stats;

static clip_stats stats_of(const ossa_clip *c) {
    clip_stats s;
    memset(&s, 0, sizeof s);
    for (uint32_t t = 0; t < c->track_count; t++) {
        const ossa_track *parts[3] = {&c->tracks[t].translation, &c->tracks[t].rotation, &c->tracks[t].scale};
        for (int k = 0; k < 3; k++)
            if (parts[k]->key_count) {
                s.channels[k]++;
                s.interp[parts[k]->interp == OSSA_INTERP_DEFAULT ? OSSA_INTERP_LINEAR : parts[k]->interp] = true;
            }
    }
    for (uint32_t w = 0; w < c->weight_track_count; w++) {
        s.channels[3]++;
        ossa_interp i = c->weight_tracks[w].weights.interp;
        s.interp[i == OSSA_INTERP_DEFAULT ? OSSA_INTERP_LINEAR : i] = true;
    }
    return s;
}

static const char *INTERP[4] = {"LINEAR", "STEP", "LINEAR", "CUBICSPLINE"};

/* Linear-time indexes: children lists and, per skeleton joint, the skins it belongs to. */
typedef struct tree_index {
    uint32_t *first_child, *next_sibling; /* glTF node indices, UINT32_MAX = none */
    uint32_t *skin_offset, *skin_list;    /* CSR by skeleton joint */
} tree_index;

static bool index_build(const ossa_asset *a, tree_index *t) {
    const ossa_skeleton *sk = a->skeleton;
    uint32_t n = a->node_count, jn = sk ? sk->joint_count : 0, total = 0;
    for (uint32_t s = 0; sk && s < sk->skin_count; s++) total += sk->skins[s].joint_count;
    t->first_child = malloc(sizeof(uint32_t) * (n + 1));
    t->next_sibling = malloc(sizeof(uint32_t) * (n + 1));
    t->skin_offset = calloc(jn + 2, sizeof(uint32_t));
    t->skin_list = malloc(sizeof(uint32_t) * (total + 1));
    if (!t->first_child || !t->next_sibling || !t->skin_offset || !t->skin_list) return false;
    for (uint32_t i = 0; i < n; i++) t->first_child[i] = t->next_sibling[i] = UINT32_MAX;
    for (uint32_t i = n; i-- > 0;) {
        int32_t p = a->nodes[i].parent;
        if (p >= 0) {
            t->next_sibling[i] = t->first_child[p];
            t->first_child[p] = i;
        }
    }
    for (uint32_t s = 0; sk && s < sk->skin_count; s++)
        for (uint32_t k = 0; k < sk->skins[s].joint_count; k++) t->skin_offset[sk->skins[s].joints[k] + 2]++;
    for (uint32_t j = 0; j < jn; j++) t->skin_offset[j + 2] += t->skin_offset[j + 1];
    for (uint32_t s = 0; sk && s < sk->skin_count; s++)
        for (uint32_t k = 0; k < sk->skins[s].joint_count; k++) t->skin_list[t->skin_offset[sk->skins[s].joints[k] + 1]++] = s;
    return true; /* now skin_offset[j] .. skin_offset[j + 1] lists joint j's skins */
}

static void index_free(tree_index *t) {
    free(t->first_child);
    free(t->next_sibling);
    free(t->skin_offset);
    free(t->skin_list);
}

/* Built clips of a packed file (the asset has no editable clips then): each clip's object
 * also carries built_bytes, precision, max_error (numbers), lossless (bool). */
static void print_built_json(const ossa_asset *a) {
    for (uint32_t c = 0; !a->clip_count && c < a->built_clip_count; c++) {
        const ossa_built_clip *b = a->built_clips[c];
        ossa_clip_build_options o = ossa_built_clip_options(b);
        ossa_clip_build_stats st = ossa_built_clip_stats(b);
        printf("%s{\"index\": %u, \"name\": ", c ? ",\n  " : "", c);
        json_put_str(ossa_built_clip_name(b));
        printf(", \"start\": ");
        json_put_num(ossa_built_clip_start(b));
        printf(", \"end\": ");
        json_put_num(ossa_built_clip_end(b));
        printf(", \"duration\": ");
        json_put_num(ossa_built_clip_duration(b));
        printf(", \"tracks\": %u, \"weight_tracks\": %u, \"lossless\": %s, \"built_bytes\": %zu, \"precision\": ",
               ossa_built_clip_track_count(b), ossa_built_clip_weight_track_count(b),
               ossa_built_clip_lossless(b) ? "true" : "false", ossa_built_clip_byte_size(b));
        json_put_num(ossa_built_clip_lossless(b) ? 0.0 : o.precision);
        double h = a->skeleton ? ossa_skeleton_bind_height(a->skeleton) : 0.0;
        printf(", \"character_height\": ");
        json_put_num(h);
        printf(", \"precision_of_height\": ");
        json_put_num(ossa_built_clip_lossless(b) || !(h > 0) ? 0.0 : o.precision / h);
        printf(", \"max_error\": ");
        json_put_num(st.max_error);
        printf(", \"report\": ");
        cli_print_clip_report_json(a, c < a->clip_report_count ? &a->clip_reports[c] : NULL);
        printf("}");
    }
}

static void print_built_text(const ossa_asset *a) {
    if (a->clip_count || !a->built_clip_count) return;
    printf("built clips: %u\n", a->built_clip_count);
    for (uint32_t c = 0; c < a->built_clip_count; c++) {
        const ossa_built_clip *b = a->built_clips[c];
        ossa_clip_build_stats st = ossa_built_clip_stats(b);
        printf("  [%u] '%s': %.4g s (%.4g .. %.4g), %u tracks, %zu bytes, ", c, ossa_built_clip_name(b),
               (double)ossa_built_clip_duration(b), (double)ossa_built_clip_start(b), (double)ossa_built_clip_end(b),
               ossa_built_clip_track_count(b), ossa_built_clip_byte_size(b));
        if (ossa_built_clip_lossless(b)) printf("lossless");
        else {
            double p = ossa_built_clip_options(b).precision, h = a->skeleton ? ossa_skeleton_bind_height(a->skeleton) : 0.0;
            printf("precision %.3g model units", p);
            if (h > 0) printf(" (%.3g of the height %.4g)", p / h, h);
        }
        printf(", measured max error %.3g (joint shells)", (double)st.max_error);
        const ossa_clip_report *report = c < a->clip_report_count ? &a->clip_reports[c] : NULL;
        if (!(ossa_built_clip_lossless(b) && report && !report->vertex_meshes)) /* lossless: exact keys */
            cli_print_clip_report(a, report);
        printf("\n");
    }
}

static const char *ALPHA[3] = {"OPAQUE", "MASK", "BLEND"};

static const char *alpha_name(ossa_alpha_mode m) { return (unsigned)m < 3 ? ALPHA[m] : "?"; }

/* The texture's image when it names one of the asset's images, else NULL. */
static const ossa_image *texture_image(const ossa_asset *a, const ossa_material *m) {
    int32_t i = m->base_color_texture.image;
    return i >= 0 && (uint32_t)i < a->image_count ? &a->images[i] : NULL;
}

/* "materials" and "images" members of the JSON object. */
static void print_materials_json(const ossa_asset *a) {
    printf("],\n \"materials\": [");
    for (uint32_t i = 0; i < a->material_count; i++) {
        const ossa_material *m = &a->materials[i];
        printf("%s{\"index\": %u, \"name\": ", i ? ",\n  " : "", i);
        json_put_str(m->name);
        printf(", \"base_color\": [");
        for (int c = 0; c < 4; c++) printf(c ? ", " : ""), json_put_num(m->base_color[c]);
        if (texture_image(a, m))
            printf("], \"texture\": {\"image\": %d, \"texcoord\": %u}", m->base_color_texture.image,
                   m->base_color_texture.texcoord);
        else
            printf("], \"texture\": null");
        printf(", \"alpha_mode\": \"%s\", \"alpha_cutoff\": ", alpha_name(m->alpha_mode));
        json_put_num(m->alpha_cutoff);
        printf(", \"double_sided\": %s}", m->double_sided ? "true" : "false");
    }
    printf("],\n \"images\": [");
    for (uint32_t i = 0; i < a->image_count; i++) {
        const ossa_image *im = &a->images[i];
        uint32_t w = 0, h = 0;
        bool known = im->data && image_dimensions(im->data, im->size, &w, &h);
        printf("%s{\"index\": %u, \"name\": ", i ? ",\n  " : "", i);
        json_put_str(im->name);
        printf(", \"uri\": ");
        json_put_str(im->uri);
        printf(", \"mime_type\": ");
        json_put_str(im->mime_type);
        printf(", \"bytes\": %zu, ", im->data ? im->size : 0);
        if (known) printf("\"width\": %u, \"height\": %u}", w, h);
        else printf("\"width\": null, \"height\": null}");
    }
}

/* One line per material (with its texture's image) and per image. */
static void print_materials_text(const ossa_asset *a) {
    printf("materials: %u\n", a->material_count);
    for (uint32_t i = 0; i < a->material_count; i++) {
        const ossa_material *m = &a->materials[i];
        printf("  [%u] '%s': base colour (%.3g, %.3g, %.3g, %.3g), ", i, m->name ? m->name : "",
               (double)m->base_color[0], (double)m->base_color[1], (double)m->base_color[2], (double)m->base_color[3]);
        if (texture_image(a, m)) printf("texture image %d (TEXCOORD_%u)", m->base_color_texture.image,
                                        m->base_color_texture.texcoord);
        else printf("no texture");
        printf(", alpha %s", alpha_name(m->alpha_mode));
        if (m->alpha_mode == OSSA_ALPHA_MODE_MASK) printf(" (cutoff %.3g)", (double)m->alpha_cutoff);
        printf("%s\n", m->double_sided ? ", double-sided" : "");
    }
    printf("images: %u\n", a->image_count);
    for (uint32_t i = 0; i < a->image_count; i++) {
        const ossa_image *im = &a->images[i];
        uint32_t w = 0, h = 0;
        printf("  [%u] '%s': %s, %s", i, im->name ? im->name : "", im->uri && im->uri[0] ? im->uri : "(embedded)",
               im->mime_type && im->mime_type[0] ? im->mime_type : "unknown type");
        if (!im->data) printf(", not read\n");
        else if (image_dimensions(im->data, im->size, &w, &h)) printf(", %ux%u, %zu bytes\n", w, h, im->size);
        else printf(", %zu bytes\n", im->size);
    }
}

static void print_json(const char *file, const ossa_asset *a, const tree_index *t) {
    const ossa_skeleton *sk = a->skeleton;
    printf("{\"file\": ");
    json_put_str(file);
    printf(", \"scene\": %d, \"metres_per_unit\": ", a->scene);
    json_put_num(a->skeleton ? a->skeleton->metres_per_unit : 0.0);
    printf(",\n \"nodes\": [");
    for (uint32_t i = 0; i < a->node_count; i++) {
        const ossa_node_info *n = &a->nodes[i];
        printf("%s{\"index\": %u, \"name\": ", i ? ",\n  " : "", i);
        json_put_str(n->name);
        printf(", \"parent\": %d, \"children\": [", n->parent);
        int c = 0;
        for (uint32_t k = t->first_child[i]; k != UINT32_MAX; k = t->next_sibling[k]) printf("%s%u", c++ ? ", " : "", k);
        printf("], \"mesh\": %d, \"skin\": %d, \"joint\": %u, \"joint_of\": [", n->mesh, n->skin, n->joint);
        c = 0;
        for (uint32_t q = t->skin_offset[n->joint]; sk && q < t->skin_offset[n->joint + 1]; q++)
            printf("%s%u", c++ ? ", " : "", t->skin_list[q]);
        printf("], \"matrix\": %s, \"matrix_not_trs\": %s}", n->had_matrix ? "true" : "false",
               n->matrix_not_trs ? "true" : "false");
    }
    printf("],\n \"skins\": [");
    for (uint32_t s = 0; sk && s < sk->skin_count; s++) {
        const ossa_skin *k = &sk->skins[s];
        printf("%s{\"index\": %u, \"name\": ", s ? ",\n  " : "", s);
        json_put_str(k->name);
        printf(", \"joints\": [");
        for (uint32_t j = 0; j < k->joint_count; j++) printf("%s%u", j ? ", " : "", sk->source_index[k->joints[j]]);
        printf("], \"root\": %d}", k->root >= 0 ? (int32_t)sk->source_index[k->root] : -1);
    }
    printf("],\n \"meshes\": [");
    for (uint32_t m = 0; m < a->mesh_info_count; m++) {
        printf("%s{\"index\": %u, \"name\": ", m ? ",\n  " : "", m);
        json_put_str(a->mesh_infos[m].name);
        printf(", \"primitives\": %u, \"targets\": %u}", a->mesh_infos[m].primitive_count, a->mesh_infos[m].target_count);
    }
    printf("],\n \"primitives\": [");
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *x = a->meshes[m];
        printf("%s{\"node\": %d, \"mesh\": %u, \"primitive\": %u, \"vertices\": %u, \"indices\": %u, \"influences\": %u, "
               "\"skin\": %d, \"targets\": %u}",
               m ? ",\n  " : "", x->node >= 0 && sk ? (int32_t)sk->source_index[x->node] : -1, x->source_mesh,
               x->source_primitive, x->vertex_count, x->index_count, x->influences, x->skin, x->target_count);
    }
    printf("],\n \"clips\": [");
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const ossa_clip *cl = a->clips[c];
        clip_stats st = stats_of(cl);
        printf("%s{\"index\": %u, \"name\": ", c ? ",\n  " : "", c);
        json_put_str(cl->name);
        printf(", \"start\": ");
        json_put_num(cl->start);
        printf(", \"end\": ");
        json_put_num(cl->end);
        printf(", \"duration\": ");
        json_put_num(ossa_clip_duration(cl));
        printf(", \"tracks\": %u, \"channels\": {\"translation\": %u, \"rotation\": %u, \"scale\": %u, \"weights\": %u}, "
               "\"interpolations\": [",
               cl->track_count, st.channels[0], st.channels[1], st.channels[2], st.channels[3]);
        int k = 0;
        for (int i = 1; i < 4; i++)
            if (st.interp[i]) printf("%s\"%s\"", k++ ? ", " : "", INTERP[i]);
        printf("]}");
    }
    print_built_json(a);
    print_materials_json(a);
    printf("],\n \"warnings\": [");
    for (uint32_t w = 0; w < a->warning_count; w++) {
        if (w) printf(",\n  ");
        json_put_str(a->warnings[w]);
    }
    printf("]}\n");
}

static void print_text(const char *file, const ossa_asset *a, const tree_index *t) {
    const ossa_skeleton *sk = a->skeleton;
    printf("%s\n", file);
    printf("nodes: %u (default scene %d)\n", a->node_count, a->scene);
    if (a->skeleton && a->skeleton->metres_per_unit > 0)
        printf("unit: %g m (declared by the file)\n", (double)a->skeleton->metres_per_unit);
    else printf("unit: not declared (build defaults scale with the character's height)\n");
    /* iterative depth-first walk over roots in glTF order */
    uint32_t n = a->node_count;
    uint32_t *stack = calloc((size_t)n + 1, sizeof *stack);
    uint32_t *depth = calloc((size_t)n + 1, sizeof *depth);
    if (stack && depth) {
        for (uint32_t root = 0; root < n; root++) {
            if (a->nodes[root].parent >= 0) continue;
            uint32_t top = 0;
            stack[top] = root;
            depth[top++] = 0;
            while (top) {
                top--;
                uint32_t i = stack[top], d = depth[top];
                const ossa_node_info *x = &a->nodes[i];
                printf("  %*s[%u] %s", (int)(2 * (d > 30 ? 30 : d)), "", i, x->name && x->name[0] ? x->name : "(unnamed)");
                if (x->mesh >= 0) printf("  mesh %d", x->mesh);
                if (x->skin >= 0) printf("  skin %d", x->skin);
                if (x->had_matrix) printf("  (matrix%s)", x->matrix_not_trs ? ", not TRS" : "");
                int c = 0;
                for (uint32_t q = t->skin_offset[x->joint]; sk && q < t->skin_offset[x->joint + 1]; q++)
                    printf("%s%u", c++ ? "," : "  joint of skin ", t->skin_list[q]);
                printf("\n");
                /* push children in reverse so they print in glTF order */
                uint32_t first = top;
                for (uint32_t k = t->first_child[i]; k != UINT32_MAX && top < n; k = t->next_sibling[k]) {
                    stack[top] = k;
                    depth[top++] = d + 1;
                }
                for (uint32_t lo = first, hi = top; hi > lo + 1; lo++, hi--) {
                    uint32_t tmp = stack[lo];
                    stack[lo] = stack[hi - 1];
                    stack[hi - 1] = tmp;
                }
            }
        }
    }
    free(stack);
    free(depth);
    printf("skins: %u\n", sk ? sk->skin_count : 0);
    for (uint32_t s = 0; sk && s < sk->skin_count; s++)
        printf("  [%u] %s: %u joints, skeleton root %d\n", s, sk->skins[s].name[0] ? sk->skins[s].name : "(unnamed)",
               sk->skins[s].joint_count, sk->skins[s].root >= 0 ? (int32_t)sk->source_index[sk->skins[s].root] : -1);
    printf("meshes: %u (%u triangle primitives instanced)\n", a->mesh_info_count, a->mesh_count);
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *x = a->meshes[m];
        printf("  node %d mesh %u '%s' primitive %u: %u vertices, %u indices, %u influences/vertex%s", 
               x->node >= 0 && sk ? (int32_t)sk->source_index[x->node] : -1, x->source_mesh, x->name ? x->name : "",
               x->source_primitive, x->vertex_count, x->index_count, x->influences, x->skin >= 0 ? "" : " (rigid)");
        if (x->skin >= 0) printf(", skin %d", x->skin);
        if (x->target_count) printf(", %u morph targets", x->target_count);
        printf("\n");
    }
    printf("clips: %u\n", a->clip_count);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const ossa_clip *cl = a->clips[c];
        clip_stats st = stats_of(cl);
        printf("  [%u] '%s': %.4g s (%.4g .. %.4g), %u channels (T %u, R %u, S %u, weights %u),", c, cl->name,
               (double)ossa_clip_duration(cl), (double)cl->start, (double)cl->end,
               st.channels[0] + st.channels[1] + st.channels[2] + st.channels[3], st.channels[0], st.channels[1],
               st.channels[2], st.channels[3]);
        for (int i = 1; i < 4; i++)
            if (st.interp[i]) printf(" %s", INTERP[i]);
        printf("\n");
    }
    print_built_text(a);
    print_materials_text(a);
    printf("warnings: %u\n", a->warning_count);
    for (uint32_t w = 0; w < a->warning_count; w++) printf("  %s\n", a->warnings[w]);
}

static int usage(FILE *f) {
    fprintf(f, "usage: ossa info FILE [--json]\n"
               "  prints the node tree (with the skins each node is a joint of), skins, meshes and\n"
               "  primitives (vertices, influences, morph targets), clips (duration, channels,\n"
               "  interpolations), materials and images (base colour, texture, alpha mode, image size)\n"
               "  and the loader's warnings (e.g. vertices whose weights were renormalised, with a count)\n"
               "  --json   one JSON object instead of text (keys listed in tools/ossa/cmd_info.c)\n");
    return f == stdout ? 0 : 2;
}

int cmd_info(int argc, char **argv) {
    const char *file = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout);
        if (!strcmp(argv[i], "--json")) json = true;
        else if (argv[i][0] == '-' && argv[i][1]) {
            cli_unknown_option("info", argv[i], false);
            return usage(stderr);
        } else if (file) {
            fprintf(stderr, "ossa info: more than one FILE: %s\n", argv[i]);
            return usage(stderr);
        } else file = argv[i];
    }
    if (!file) return usage(stderr);
    ossa_asset *asset = cli_load_asset("info", file);
    if (!asset) {
        return 1;
    }
    tree_index t;
    memset(&t, 0, sizeof t);
    int rc = 0;
    if (!index_build(asset, &t)) {
        fprintf(stderr, "ossa info: out of memory\n");
        rc = 1;
    } else if (json) {
        print_json(file, asset, &t);
    } else {
        print_text(file, asset, &t);
    }
    index_free(&t);
    ossa_asset_destroy(asset);
    return rc;
}
