/* ossa retarget SOURCE --to TARGET [--clip NAME]... [--map MAP.json] [--tpose-fix] [--no-contacts]
 *               --out OUT.ossa [--report] [--json REPORT.json]
 * ossa retarget --print-map SOURCE [TARGET]
 *
 * Retargets SOURCE's clips (every one, or those --clip names) onto TARGET's humanoid skeleton
 * (ossa/retarget.h: automatic bone maps by name, completed by a map file) and writes TARGET's
 * skeleton, skins, meshes and materials with the retargeted clips, named after the source clips
 * and built like `ossa pack` builds them, into one packed file every command reads. --report
 * prints each clip's quality report, --json writes them as one JSON document; --precision and
 * --lossless build the clips as `ossa pack` does. --print-map shows
 * the automatic maps: one line per profile bone with the joint each skeleton maps to it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>
#include <ossa/retarget.h>

#include "cli_common.h"
#include "commands.h"
#include "retarget_cli.h"

static int usage(FILE *f) {
    fprintf(f,
            "usage: ossa retarget SOURCE --to TARGET [--clip NAME|INDEX]... [--map MAP.json] [--tpose-fix]\n"
            "                     [--no-contacts] --out OUT.ossa [--report] [--json REPORT.json]\n"
            "                     [--rest-reference] [--precision P] [--lossless]\n"
            "       ossa retarget --print-map SOURCE [TARGET] [--map MAP.json]\n"
            "  SOURCE, TARGET  humanoid models of any format (glTF, FBX, BVH, ...; \"demo\" = the built-in\n"
            "           character); TARGET may be a packed .ossa file, SOURCE needs its editable clips\n"
            "  --clip   a source clip to retarget (name or index; repeatable; default: every clip)\n"
            "  --map    a JSON map file completing or overriding the automatic bone maps:\n"
            "           {\"source\": {\"left_foot\": \"LeftFoot\", ...}, \"target\": {...}} (docs/retargeting.md)\n"
            "  --tpose-fix   align both reference poses to a common T-pose first (an A-pose rig and a T-pose rig)\n"
            "  --no-contacts do not pin the target's feet during the source's foot contacts\n"
            "  --rest-reference  both skeletons' rest poses as references (default: a skinned one's bind pose;\n"
            "           facings are aligned either way: it only chooses which pose is the reference)\n"
            "  --out    the packed file: TARGET's skeleton, meshes and materials, the retargeted clips (built)\n"
            "  --precision P / --lossless  how the clips are built, as `ossa pack` (default 1e-4 model units)\n"
            "  --report print each clip's quality report; --json FILE writes the reports as JSON\n"
            "  --print-map   the automatic map of each file: profile bone -> joint name (then --map's entries)\n");
    return f == stdout ? 0 : 2;
}

typedef struct retarget_args {
    const char *files[2];  /* SOURCE, and TARGET for --print-map */
    uint32_t file_count;
    const char *target, *out, *json;
    const char **clips;    /* argc entries */
    uint32_t clip_count;
    bool report, print_map;
    ossa_clip_build_options build; /* --precision, --lossless (as `ossa pack`) */
} retarget_args;

/* Parses argv into a; returns CLI_GO_ON when parsed, else the exit code (0 after --help, 2 on a usage error). */
static int parse_args(int argc, char **argv, retarget_args *a) {
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) return usage(stdout);
        if (!strcmp(s, "--to") && more) a->target = argv[++i];
        else if (!strcmp(s, "--out") && more) a->out = argv[++i];
        else if (!strcmp(s, "--json") && more) a->json = argv[++i];
        else if (!strcmp(s, "--clip") && more) a->clips[a->clip_count++] = argv[++i];
        else if (!strcmp(s, "--report")) a->report = true;
        else if (!strcmp(s, "--lossless")) a->build.lossless = true;
        else if (!strcmp(s, "--precision") && more) {
            char *end;
            a->build.precision = strtof(argv[++i], &end);
            if (*end || !(a->build.precision > 0)) {
                fprintf(stderr, "ossa retarget: --precision expects a positive number of model units\n");
                return 2;
            }
        }
        else if (!strcmp(s, "--print-map")) a->print_map = true;
        else if (s[0] == '-' && s[1]) {
            cli_unknown_option("retarget", s, !more);
            return usage(stderr);
        } else if (a->file_count < 2) a->files[a->file_count++] = s;
        else {
            fprintf(stderr, "ossa retarget: too many files: %s\n", s);
            return usage(stderr);
        }
    }
    if (cli_load.anim) {
        fprintf(stderr, "ossa retarget: --anim: give the file with the clips as SOURCE\n");
        return usage(stderr);
    }
    if (a->print_map) return a->file_count ? CLI_GO_ON : usage(stderr);
    if (a->file_count != 1 || !a->target || !a->out) {
        fprintf(stderr, "ossa retarget: needs SOURCE, --to TARGET and --out OUT.ossa\n");
        return usage(stderr);
    }
    return CLI_GO_ON;
}

/* ------------------------------------------------------------ --print-map --- */

static const char *joint_name(const ossa_skeleton *sk, const ossa_retarget_map *map, uint32_t bone) {
    int32_t j = map->joints[bone];
    return j >= 0 && (uint32_t)j < sk->joint_count ? sk->names[j] : "-";
}

/* One line per profile bone: its name, '*' when required, the joint of each file. */
static void print_map_table(const retarget_args *a, const ossa_skeleton *const *sk, const ossa_retarget_map *maps) {
    printf("%-18s", "profile bone");
    for (uint32_t f = 0; f < a->file_count; f++) printf("  %-28s", a->files[f]);
    printf("\n");
    uint32_t fingers_hidden = 0;
    for (uint32_t b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        bool required = ossa_humanoid_bone_required((ossa_humanoid_bone)b), any = false;
        for (uint32_t f = 0; f < a->file_count; f++) any = any || maps[f].joints[b] >= 0;
        if (b >= OSSA_HUMANOID_LEFT_THUMB_1 && !any) { /* optional fingers: only the mapped ones */
            fingers_hidden++;
            continue;
        }
        printf("%-17s%c", ossa_humanoid_bone_name((ossa_humanoid_bone)b), required ? '*' : ' ');
        for (uint32_t f = 0; f < a->file_count; f++) printf("  %-28s", joint_name(sk[f], &maps[f], b));
        printf("\n");
    }
    printf("(* required; - unmapped%s)\n", fingers_hidden ? "; finger bones mapped in no file are left out" : "");
}

/* Each map's state after the table: "FILE: map complete" or the first fault. True when all pass. */
static bool print_map_checks(const retarget_args *a, const ossa_skeleton *const *sk, const ossa_retarget_map *maps) {
    bool ok = true;
    for (uint32_t f = 0; f < a->file_count; f++) {
        ossa_diagnostic d;
        memset(&d, 0, sizeof d);
        if (ossa_retarget_map_validate(&maps[f], sk[f], &d) == OSSA_OK) {
            printf("%s: map complete (%u joints)\n", a->files[f], sk[f]->joint_count);
        } else {
            printf("%s: map not usable: %s\n", a->files[f], d.message);
            ok = false;
        }
    }
    return ok;
}

static int print_map(const retarget_args *a) {
    ossa_asset *assets[2] = {NULL, NULL};
    const ossa_skeleton *sk[2] = {NULL, NULL};
    ossa_retarget_map maps[2];
    static const char *const sides[2] = {"source", "target"};
    int rc = 0;
    for (uint32_t f = 0; f < a->file_count && !rc; f++) {
        assets[f] = retarget_cli_load_asset("retarget", a->files[f]);
        if (!assets[f]) {
            rc = 1;
            break;
        }
        sk[f] = assets[f]->skeleton;
        ossa_diagnostic d;
        (void)ossa_retarget_map_auto(sk[f], &maps[f], &d); /* incomplete maps are shown, then reported */
        if (retarget_cli_load.map_file &&
            !retarget_cli_apply_map_file("retarget", retarget_cli_load.map_file, sides[f], sk[f], &maps[f]))
            rc = 1;
    }
    if (!rc) {
        print_map_table(a, sk, maps);
        if (!print_map_checks(a, sk, maps)) rc = 1;
    }
    for (uint32_t f = 0; f < 2; f++) ossa_asset_destroy(assets[f]);
    return rc;
}

/* ------------------------------------------------------------- the report --- */

static double percent(float fraction) { return 100.0 * (double)fraction; }

static void print_limbs(const ossa_retarget_report *r) {
    static const char *const names[OSSA_RETARGET_LIMB_COUNT] = {"left foot", "right foot", "left hand", "right hand"};
    for (uint32_t l = 0; l < OSSA_RETARGET_LIMB_COUNT; l++) {
        const ossa_retarget_limb_report *m = &r->limbs[l];
        if (l >= OSSA_RETARGET_LEFT_HAND && !m->contact_count) continue;
        printf("  %-10s  %u contacts (%u frames): skate %.2f %% of leg length (source %.2f %%)\n", names[l],
               m->contact_count, m->contact_frames, percent(m->target_skate), percent(m->source_skate));
    }
}

static void print_bones(const ossa_retarget_report *r) {
    printf("  per bone (degrees, mean / max):");
    uint32_t n = 0;
    for (uint32_t b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        const ossa_retarget_angle_stats *s = &r->bones[b];
        if (!s->mapped) continue;
        printf("%s%s %.1f / %.1f", n % 4 ? ", " : "\n    ", ossa_humanoid_bone_name((ossa_humanoid_bone)b),
               (double)s->mean_degrees, (double)s->max_degrees);
        n++;
    }
    printf("\n");
}

static void print_report(const char *clip_name, const ossa_retarget_report *r) {
    printf("report '%s': %u frames, %.2f s\n", clip_name, r->frame_count, (double)r->duration);
    print_limbs(r);
    printf("  bone length change  %.3g model units (max over joints and frames)\n", (double)r->bone_length_change);
    printf("  angle to source     mean %.2f deg, max %.2f deg (%s)\n", (double)r->angle_mean_degrees,
           (double)r->angle_max_degrees,
           r->angle_max_bone >= 0 ? ossa_humanoid_bone_name((ossa_humanoid_bone)r->angle_max_bone) : "-");
    printf("  ground penetration  %.2f %% of leg length (source %.2f %%)\n", percent(r->target_penetration),
           percent(r->source_penetration));
    printf("  round trip A>B>A    mean %.3f deg, max %.3f deg, hips %.3f %% of leg length\n",
           (double)r->round_trip_mean_degrees, (double)r->round_trip_max_degrees, percent(r->round_trip_hips));
    print_bones(r);
}

static void json_write_str(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* {"source": ..., "target": ..., "clips": [{"name": ..., "report": {...}}, ...]}; false after an error. */
static bool write_json(const retarget_args *a, ossa_clip *const *baked, const ossa_retarget_report *reports,
                       uint32_t count) {
    FILE *f = fopen(a->json, "w");
    if (!f) {
        fprintf(stderr, "ossa retarget: cannot write %s (%s)\n", a->json, strerror(errno));
        return false;
    }
    fprintf(f, "{\"source\": ");
    json_write_str(f, a->files[0]);
    fprintf(f, ", \"target\": ");
    json_write_str(f, a->target);
    fprintf(f, ", \"clips\": [");
    bool ok = true;
    for (uint32_t c = 0; c < count && ok; c++) {
        size_t n = ossa_retarget_report_to_json(&reports[c], NULL, 0);
        char *text = malloc(n + 1);
        ok = text != NULL;
        if (ok) {
            ossa_retarget_report_to_json(&reports[c], text, n + 1);
            fprintf(f, "%s\n  {\"name\": ", c ? "," : "");
            json_write_str(f, baked[c]->name);
            fprintf(f, ", \"report\": %s}", text);
        }
        free(text);
    }
    fprintf(f, "\n]}\n");
    if (fclose(f) != 0 || !ok) {
        fprintf(stderr, "ossa retarget: cannot write %s\n", a->json);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ the retarget --- */

/* The source clip indices to retarget (--clip names or indices; default every clip) into
 * picked (source->clip_count entries); the count, or -1 after printing an error. */
static int pick_clips(const retarget_args *a, const ossa_asset *source, uint32_t *picked) {
    if (!a->clip_count) {
        for (uint32_t i = 0; i < source->clip_count; i++) picked[i] = i;
        return (int)source->clip_count;
    }
    for (uint32_t k = 0; k < a->clip_count; k++) {
        int32_t i = ossa_asset_find_clip(source, a->clips[k]);
        char *end = NULL;
        long n = strtol(a->clips[k], &end, 10);
        if (i < 0 && end != a->clips[k] && !*end && n >= 0 && (uint64_t)n < source->clip_count) i = (int32_t)n;
        if (i < 0) {
            fprintf(stderr, "ossa retarget: %s has no clip '%s'; clips:", a->files[0], a->clips[k]);
            for (uint32_t c = 0; c < source->clip_count; c++) fprintf(stderr, " %u:'%s'", c, source->clips[c]->name);
            fprintf(stderr, "\n");
            return -1;
        }
        picked[k] = (uint32_t)i;
    }
    return (int)a->clip_count;
}

/* A target made in code (the demo character) has no node infos: one node per joint then, so the
 * packed file names its joints to `ossa info` and `ossa sample` like a loaded model's. */
static bool add_joint_nodes(ossa_asset *target) {
    const ossa_skeleton *sk = target->skeleton;
    if (target->node_count || !sk->joint_count) return true;
    ossa_allocator *al = &target->allocator;
    size_t bytes = sk->joint_count * sizeof *target->nodes;
    ossa_node_info *nodes = al->alloc ? al->alloc(bytes, al->user) : malloc(bytes);
    if (!nodes) return false;
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        memset(&nodes[j], 0, sizeof nodes[j]);
        nodes[j].name = sk->names[j];
        nodes[j].parent = sk->parents[j];
        nodes[j].mesh = nodes[j].skin = -1;
        nodes[j].joint = j;
        nodes[j].matrix = ossa_transform_to_mat4(sk->rest[j]);
    }
    target->nodes = nodes;
    target->node_count = sk->joint_count;
    return true;
}

/* Replaces the target's clips (editable and built) by `baked` (ownership moves), builds them
 * as `ossa pack` does and writes the packed file. 0, or 1 after printing an error. */
static int write_packed(const retarget_args *a, ossa_asset *target, ossa_clip **baked, uint32_t count) {
    for (uint32_t i = 0; i < target->clip_count; i++) ossa_clip_destroy(target->clips[i]);
    for (uint32_t i = 0; i < target->built_clip_count; i++) ossa_built_clip_destroy(target->built_clips[i]);
    target->clip_count = target->built_clip_count = 0;
    ossa_allocator *al = &target->allocator; /* the built clips' array (a packed target's): rebuilt below */
    if (target->built_clips && al->free) al->free(target->built_clips, al->user);
    else free(target->built_clips);
    target->built_clips = NULL;
    if (target->clip_reports && al->free) al->free(target->clip_reports, al->user); /* rebuilt with the clips */
    else free(target->clip_reports);
    target->clip_reports = NULL;
    target->clip_report_count = 0;
    if (!cli_prepend_clips(target, baked, count)) {
        for (uint32_t i = 0; i < count; i++) ossa_clip_destroy(baked[i]);
        fprintf(stderr, "ossa retarget: out of memory\n");
        return 1;
    }
    if (!add_joint_nodes(target)) {
        fprintf(stderr, "ossa retarget: out of memory\n");
        return 1;
    }
    if (cli_build_clips(target, &a->build, "retarget", true)) return 1;
    ossa_pack_options pack;
    memset(&pack, 0, sizeof pack);
    size_t size = 0;
    ossa_result r = ossa_pack_write(target, &pack, NULL, 0, &size);
    if (!r) r = ossa_pack_write_file(target, &pack, a->out);
    if (r) {
        fprintf(stderr, "ossa retarget: cannot write %s (%s)\n", a->out, ossa_result_string(r));
        return 1;
    }
    printf("wrote %s: %zu bytes (%u joints, %u skins, %u meshes, %u retargeted clips)\n", a->out, size,
           target->skeleton->joint_count, target->skeleton->skin_count, target->mesh_count, target->built_clip_count);
    return 0;
}

/* Bakes the picked clips (and their reports when asked) into baked / reports. 0 or 1. */
static int bake_all(const retarget_args *a, const ossa_retarget_rig *rig, const ossa_asset *source,
                    const uint32_t *picked, uint32_t count, ossa_clip **baked, ossa_retarget_report *reports) {
    ossa_retarget_bake_options options;
    memset(&options, 0, sizeof options);
    options.no_contacts = retarget_cli_load.no_contacts;
    for (uint32_t k = 0; k < count; k++) {
        const ossa_clip *clip = source->clips[picked[k]];
        if (!retarget_cli_bake("retarget", rig, clip, &retarget_cli_load, &baked[k])) return 1;
        if (!a->report && !a->json) continue;
        ossa_result r = ossa_retarget_report_compute(rig, clip, baked[k], &options, NULL, &reports[k]);
        if (r) {
            fprintf(stderr, "ossa retarget: the report of clip '%s' failed (%s)\n", clip->name, ossa_result_string(r));
            return 1;
        }
        if (a->report) print_report(clip->name, &reports[k]);
    }
    return 0;
}

static int retarget(const retarget_args *a) {
    ossa_asset *source = retarget_cli_load_asset("retarget", a->files[0]);
    ossa_asset *target = source ? retarget_cli_load_asset("retarget", a->target) : NULL;
    if (!target) {
        ossa_asset_destroy(source);
        return 1;
    }
    int rc = 0;
    if (!source->clip_count) {
        fprintf(stderr, "ossa retarget: %s: no clips to retarget%s\n", a->files[0],
                source->built_clip_count ? " (a packed file holds built clips only: use the source model file)" : "");
        rc = 1;
    }
    uint32_t n = source->clip_count + a->clip_count + 1;
    uint32_t *picked = calloc(n, sizeof *picked);
    ossa_clip **baked = calloc(n, sizeof *baked);
    ossa_retarget_report *reports = calloc(n, sizeof *reports);
    if (!rc && !(picked && baked && reports)) {
        fprintf(stderr, "ossa retarget: out of memory\n");
        rc = 1;
    }
    int count = rc ? -1 : pick_clips(a, source, picked);
    ossa_retarget_rig *rig = count > 0 ? retarget_cli_rig("retarget", a->files[0], source->skeleton, a->target,
                                                          target->skeleton, &retarget_cli_load)
                                       : NULL;
    rc = !rig || bake_all(a, rig, source, picked, (uint32_t)count, baked, reports);
    if (!rc && a->json && !write_json(a, baked, reports, (uint32_t)count)) rc = 1;
    if (!rc) {
        rc = write_packed(a, target, baked, (uint32_t)count); /* baked clips now the target's */
    } else {
        for (uint32_t i = 0; i < n; i++) ossa_clip_destroy(baked ? baked[i] : NULL);
    }
    ossa_retarget_rig_destroy(rig);
    free(picked);
    free(baked);
    free(reports);
    ossa_asset_destroy(source);
    ossa_asset_destroy(target);
    return rc;
}

int cmd_retarget(int argc, char **argv) {
    retarget_args a;
    memset(&a, 0, sizeof a);
    a.clips = calloc((size_t)argc + 1, sizeof *a.clips);
    if (!a.clips) {
        fprintf(stderr, "ossa retarget: out of memory\n");
        return 1;
    }
    int rc = parse_args(argc, argv, &a);
    if (rc == CLI_GO_ON) rc = a.print_map ? print_map(&a) : retarget(&a);
    free(a.clips);
    return rc;
}
