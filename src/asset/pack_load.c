/* The packed .ossa loader (see ossa/pack.h, docs/ossa-format.md).
 *
 * The bytes are untrusted. Order: header (magic, version, endianness, size), the
 * checksum, the section table (bounds, alignment, order, duplicates), then each
 * section in dependency order (strings, meta, skeleton, skins, mesh infos, nodes,
 * meshes, clips, clip reports, warnings). Every count is bounded by its section's size before
 * anything is allocated, every index is checked against what it indexes, every stored
 * float that reaches a pose, matrix or vertex stream must be finite (built clips: their
 * base pose, keys and weights, checked by ossa_built_clip_load, which also bounds their
 * magnitude so that sampling stays finite). Objects are attached to
 * the asset as soon as they exist, so one ossa_asset_destroy cleans up any failure. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/hash.h"
#include "asset/pack_internal.h"

#include <ossa/built_clip.h>

#define DEFAULT_LIMIT ((size_t)1 << 30)

typedef struct pk_section {
    bool present;
    uint32_t index; /* position in the section table, for messages */
    uint32_t count;
    uint64_t offset, size;
} pk_section;

typedef struct pl {
    const uint8_t *d;
    size_t size;
    ossa_diagnostic *diag;
    ossa_allocator al;
    pk_section sec[PK_TYPE_COUNT];
    const char *strings;
    uint64_t strings_size;
    uint32_t joints, skins, mesh_infos, materials;
    const uint8_t *surfaces; /* PK_SURFACES records (one per mesh), or NULL */
    uint64_t surface_total;  /* colour-stream bytes referenced so far */
    float metres_per_unit;   /* from the meta section, for the skeleton */
} pl;

static float rd_f32(const uint8_t *p) {
    float v;
    memcpy(&v, p, 4);
    return v;
}

static const char *const PATH_KEY[PK_TYPE_COUNT] = {"",          "meta",   "skeleton", "skins",    "nodes",
                                                    "mesh_infos", "meshes", "clips",    "warnings", "strings",
                                                    "materials", "images", "mesh_surfaces", "clip_reports"};

/* Fails with a diagnostic "section K (name) / ITEM I: message" (type 0: no section;
 * item NULL: no item) and path "/name/I". Returns r. */
static ossa_result fail(pl *L, ossa_result r, pk_type type, const char *item, uint64_t index, const char *fmt, ...) {
    if (!L->diag) return r;
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ossa_diagnostic *d = L->diag;
    if (type == 0) {
        snprintf(d->path, sizeof d->path, "%s", "");
        snprintf(d->message, sizeof d->message, "%s", msg);
    } else if (!item) {
        snprintf(d->path, sizeof d->path, "/%s", PATH_KEY[type]);
        snprintf(d->message, sizeof d->message, "section %u (%s): %s", L->sec[type].index, pk_type_name(type), msg);
    } else {
        snprintf(d->path, sizeof d->path, "/%s/%llu", PATH_KEY[type], (unsigned long long)index);
        snprintf(d->message, sizeof d->message, "section %u (%s) / %s %llu: %s", L->sec[type].index,
                 pk_type_name(type), item, (unsigned long long)index, msg);
    }
    return r;
}

static const uint8_t *sec_data(const pl *L, pk_type t) { return L->d + L->sec[t].offset; }

/* Index of the first non-finite float of n (little-endian, any alignment), or n. */
static uint64_t first_non_finite(const uint8_t *p, uint64_t n) {
    uint32_t bad = 0;
    for (uint64_t i = 0; i < n; i++) bad |= (pk_rd_u32(p + 4 * i) & 0x7f800000u) == 0x7f800000u;
    if (!bad) return n;
    for (uint64_t i = 0; i < n; i++)
        if ((pk_rd_u32(p + 4 * i) & 0x7f800000u) == 0x7f800000u) return i;
    return n;
}

static ossa_result name_at(pl *L, uint32_t offset, pk_type type, const char *item, uint64_t index, const char **out) {
    *out = "";
    if (offset >= L->strings_size)
        return fail(L, OSSA_ERROR_INVALID_DATA, type, item, index, "name offset %u is past the string table (%llu bytes)",
                    offset, (unsigned long long)L->strings_size);
    *out = L->strings + offset;
    return OSSA_OK;
}

/* ---- header and section table ---- */

static ossa_result read_header(pl *L) {
    const uint8_t *d = L->d;
    size_t n = L->size;
    size_t m = n < PK_MAGIC_SIZE ? n : PK_MAGIC_SIZE;
    if (memcmp(d, PK_MAGIC, m) != 0) return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "not a packed .ossa file (bad magic)");
    if (n < OSSA_PACK_HEADER_SIZE)
        return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "truncated: %zu bytes, shorter than the %u-byte header", n,
                    OSSA_PACK_HEADER_SIZE);
    uint32_t version = pk_rd_u32(d + PKH_VERSION);
    if (version != OSSA_PACK_VERSION)
        return fail(L, OSSA_ERROR_UNSUPPORTED, 0, NULL, 0, "format version %u (this build reads version %u)", version,
                    OSSA_PACK_VERSION);
    uint32_t endian = pk_rd_u32(d + PKH_ENDIAN);
    if (endian == 0x04030201u) return fail(L, OSSA_ERROR_UNSUPPORTED, 0, NULL, 0, "big-endian file");
    if (endian != PK_ENDIAN_MARKER)
        return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "bad endianness marker 0x%08x", endian);
    uint64_t file_size = pk_rd_u64(d + PKH_FILE_SIZE);
    if (file_size != n)
        return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "header says %llu bytes, the file has %zu (truncated or padded)",
                    (unsigned long long)file_size, n);
    if (pk_rd_u32(d + PKH_HEADER_SIZE) != OSSA_PACK_HEADER_SIZE)
        return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "header size %u, expected %u", pk_rd_u32(d + PKH_HEADER_SIZE),
                    OSSA_PACK_HEADER_SIZE);
    if (pk_rd_u32(d + PKH_FLAGS) != 0)
        return fail(L, OSSA_ERROR_UNSUPPORTED, 0, NULL, 0, "header flags 0x%x", pk_rd_u32(d + PKH_FLAGS));
    if (pk_rd_u32(d + PKH_RESERVED) != 0) return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "reserved header field is not 0");
    uint32_t count = pk_rd_u32(d + PKH_SECTION_COUNT);
    if (count > PK_MAX_SECTIONS)
        return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "%u sections (at most %u)", count, PK_MAX_SECTIONS);
    uint64_t table_end = OSSA_PACK_HEADER_SIZE + (uint64_t)count * PK_SECTION_ENTRY;
    if (table_end > n)
        return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "section table (%u entries) runs past the end of the file", count);
    uint64_t sum = ossa_pack_checksum(d, n), stored = pk_rd_u64(d + PKH_CHECKSUM);
    if (sum != stored)
        return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "checksum mismatch (stored %016llx, computed %016llx): corrupt file",
                    (unsigned long long)stored, (unsigned long long)sum);

    uint64_t prev_end = table_end;
    for (uint32_t k = 0; k < count; k++) {
        const uint8_t *e = d + OSSA_PACK_HEADER_SIZE + (uint64_t)k * PK_SECTION_ENTRY;
        uint32_t type = pk_rd_u32(e + PKS_TYPE);
        uint64_t off = pk_rd_u64(e + PKS_OFFSET), size = pk_rd_u64(e + PKS_SIZE);
        const char *tn = pk_type_name(type);
        if (type == 0) return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "section %u: type 0", k);
        if (off % 16)
            return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "section %u (%s): offset %llu is not 16-byte aligned", k, tn,
                        (unsigned long long)off);
        if (off < prev_end)
            return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "section %u (%s): offset %llu overlaps what precedes it (ends at %llu)",
                        k, tn, (unsigned long long)off, (unsigned long long)prev_end);
        if (size > n || off > n - size)
            return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "section %u (%s): %llu bytes at %llu run past the end (%zu)", k, tn,
                        (unsigned long long)size, (unsigned long long)off, n);
        if (pk_rd_u64(e + PKS_RESERVED) != 0)
            return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "section %u (%s): reserved field is not 0", k, tn);
        prev_end = off + size;
        if (type >= PK_TYPE_COUNT) continue; /* a later version's section: skipped */
        if (L->sec[type].present) return fail(L, OSSA_ERROR_PARSE, 0, NULL, 0, "section %u (%s): a second %s section", k, tn, tn);
        L->sec[type].present = true;
        L->sec[type].index = k;
        L->sec[type].count = pk_rd_u32(e + PKS_COUNT);
        L->sec[type].offset = off;
        L->sec[type].size = size;
    }
    return OSSA_OK;
}

/* A section whose size must be exactly `expected`. */
static ossa_result expect_size(pl *L, pk_type t, uint64_t expected) {
    if (L->sec[t].size != expected)
        return fail(L, OSSA_ERROR_PARSE, t, NULL, 0, "%llu bytes, expected %llu for %u items",
                    (unsigned long long)L->sec[t].size, (unsigned long long)expected, L->sec[t].count);
    return OSSA_OK;
}

/* A section of fixed-size records (its size must be count x record): *n and *p, or 0 and
 * NULL when the section is absent. */
static ossa_result records(pl *L, pk_type t, uint32_t record, uint32_t *n, const uint8_t **p) {
    *n = 0;
    *p = NULL;
    if (!L->sec[t].present) return OSSA_OK;
    ossa_result r = expect_size(L, t, (uint64_t)L->sec[t].count * record);
    if (r) return r;
    *n = L->sec[t].count;
    *p = sec_data(L, t);
    return OSSA_OK;
}

static ossa_result read_strings(pl *L) {
    const pk_section *s = &L->sec[PK_STRINGS];
    if (!s->present) return OSSA_OK;
    if (s->count != 0) return fail(L, OSSA_ERROR_PARSE, PK_STRINGS, NULL, 0, "count %u, expected 0", s->count);
    if (s->size == 0) return OSSA_OK;
    const uint8_t *p = sec_data(L, PK_STRINGS);
    if (p[s->size - 1] != 0) return fail(L, OSSA_ERROR_PARSE, PK_STRINGS, NULL, 0, "the last string is not terminated");
    if (s->size > UINT32_MAX) return fail(L, OSSA_ERROR_PARSE, PK_STRINGS, NULL, 0, "more than 4 GiB of strings");
    L->strings = (const char *)p;
    L->strings_size = s->size;
    return OSSA_OK;
}

static ossa_result read_meta(pl *L, ossa_asset *a) {
    a->scene = -1;
    if (!L->sec[PK_META].present) return OSSA_OK;
    if (L->sec[PK_META].count != 1) return fail(L, OSSA_ERROR_PARSE, PK_META, NULL, 0, "count %u, expected 1", L->sec[PK_META].count);
    ossa_result r = expect_size(L, PK_META, PK_META_SIZE);
    if (r) return r;
    int32_t scene = pk_rd_i32(sec_data(L, PK_META));
    if (scene < -1) return fail(L, OSSA_ERROR_INVALID_DATA, PK_META, NULL, 0, "scene %d", scene);
    float metres = rd_f32(sec_data(L, PK_META) + 4); /* 0 in files written before it was stored */
    if (!(metres >= 0.0f) || !isfinite(metres))
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_META, NULL, 0, "metres per unit %g is negative or not finite",
                    (double)metres);
    a->scene = scene;
    L->metres_per_unit = metres;
    return OSSA_OK;
}

/* ---- skeleton and skins ----
 * Everything is validated here, then ossa_skeleton_create builds the skeleton from the
 * file's (parents-first, so kept) joint order; the stored bind pose and source map replace
 * what it derives, so the loaded skeleton is the packed one bit for bit. */

/* The skeleton's scratch arrays: the desc's arrays (aligned copies of the file's) and the
 * joint_of_source check. */
typedef struct skeleton_scratch {
    int32_t *parents;
    ossa_transform *rest;
    const char **names;
    uint32_t *jos;
    ossa_skin_desc *skins;
    uint32_t *sj;         /* every skin's joints, back to back */
    ossa_mat4 *ibm;       /* and inverse binds */
} skeleton_scratch;

/* n joints from the skeleton section p: parents first, each source index once, names, finite
 * rest and bind poses. */
static ossa_result read_joints(pl *L, const uint8_t *p, const pk_skeleton_layout *l, uint32_t n, skeleton_scratch *x) {
    ossa_result r = OSSA_OK;
    memcpy(x->parents, p + l->parents, (size_t)n * 4);
    memcpy(x->rest, p + l->rest, (size_t)n * sizeof(ossa_transform));
    for (uint32_t j = 0; j < n; j++) x->jos[j] = UINT32_MAX;
    for (uint32_t j = 0; j < n && !r; j++) {
        uint32_t src = pk_rd_u32(p + l->source_index + 4 * (uint64_t)j);
        if (x->parents[j] < -1 || x->parents[j] >= (int32_t)j)
            r = fail(L, OSSA_ERROR_INVALID_DATA, PK_SKELETON, "joint", j,
                     "parent %d is not an earlier joint (parents must come first)", x->parents[j]);
        else if (src >= n || x->jos[src] != UINT32_MAX)
            r = fail(L, OSSA_ERROR_INVALID_DATA, PK_SKELETON, "joint", j,
                     "source index %u is out of range (%u joints) or repeated", src, n);
        else {
            x->jos[src] = j;
            r = name_at(L, pk_rd_u32(p + l->names + 4 * (uint64_t)j), PK_SKELETON, "joint", j, &x->names[j]);
        }
    }
    for (int pose = 0; pose < 2 && !r; pose++) {
        uint64_t floats = (uint64_t)n * PK_TRANSFORM_FLOATS;
        uint64_t bad = first_non_finite(p + (pose ? l->bind : l->rest), floats);
        if (bad < floats)
            r = fail(L, OSSA_ERROR_INVALID_DATA, PK_SKELETON, "joint", bad / PK_TRANSFORM_FLOATS, "non-finite %s pose",
                     pose ? "bind" : "rest");
    }
    return r;
}

/* ns skins from the skins section sk (total joints in all): names, roots and joints among the
 * n joints, finite inverse binds. */
static ossa_result read_skins(pl *L, const uint8_t *sk, const pk_skins_layout *skl, uint32_t ns, uint64_t total,
                              uint32_t n, skeleton_scratch *x) {
    if (total) {
        memcpy(x->sj, sk + skl->joints, (size_t)total * 4);
        memcpy(x->ibm, sk + skl->inverse_bind, (size_t)total * sizeof(ossa_mat4));
    }
    ossa_result r = OSSA_OK;
    uint64_t first = 0;
    for (uint32_t k = 0; k < ns && !r; k++) {
        const uint8_t *rec = sk + (uint64_t)k * PK_SKIN_RECORD;
        ossa_skin_desc *d = &x->skins[k];
        r = name_at(L, pk_rd_u32(rec), PK_SKINS, "skin", k, &d->name);
        d->joint_count = pk_rd_u32(rec + 4);
        d->root = pk_rd_i32(rec + 8);
        d->joints = x->sj + first;
        d->inverse_bind = x->ibm + first;
        if (!r && (d->root < -1 || (d->root >= 0 && (uint32_t)d->root >= n)))
            r = fail(L, OSSA_ERROR_INVALID_DATA, PK_SKINS, "skin", k, "root joint %d >= %u joints", d->root, n);
        for (uint32_t i = 0; i < d->joint_count && !r; i++)
            if (d->joints[i] >= n)
                r = fail(L, OSSA_ERROR_INVALID_DATA, PK_SKINS, "skin", k, "joint %u is %u >= %u joints", i, d->joints[i], n);
        uint64_t bad = r ? 0 : first_non_finite(sk + skl->inverse_bind + 64 * first, (uint64_t)d->joint_count * 16);
        if (!r && bad < (uint64_t)d->joint_count * 16)
            r = fail(L, OSSA_ERROR_INVALID_DATA, PK_SKINS, "skin", k, "inverse bind matrix %llu is not finite",
                     (unsigned long long)(bad / 16));
        first += d->joint_count;
    }
    return r;
}

/* The skeleton and skins sections: sizes checked against their counts, then the joints and
 * skins, then ossa_skeleton_create with the stored joint order, maps and bind pose. */
static ossa_result read_skeleton(pl *L, ossa_asset *a) {
    uint32_t n = L->sec[PK_SKELETON].present ? L->sec[PK_SKELETON].count : 0;
    uint32_t ns = L->sec[PK_SKINS].present ? L->sec[PK_SKINS].count : 0;
    ossa_result r;
    pk_skeleton_layout l = pk_skeleton_layout_of(n);
    if (L->sec[PK_SKELETON].present && (r = expect_size(L, PK_SKELETON, l.size))) return r;
    if (n > (uint32_t)INT32_MAX) return fail(L, OSSA_ERROR_LIMIT, PK_SKELETON, NULL, 0, "%u joints", n);
    /* skins: the records first (they give the pool size) */
    const uint8_t *sk = L->sec[PK_SKINS].present ? sec_data(L, PK_SKINS) : NULL;
    uint64_t total = 0;
    if (ns) {
        if ((uint64_t)ns * PK_SKIN_RECORD > L->sec[PK_SKINS].size)
            return fail(L, OSSA_ERROR_PARSE, PK_SKINS, NULL, 0, "%u skin records need %llu bytes, the section has %llu", ns,
                        (unsigned long long)ns * PK_SKIN_RECORD, (unsigned long long)L->sec[PK_SKINS].size);
        for (uint32_t k = 0; k < ns; k++) total += pk_rd_u32(sk + (uint64_t)k * PK_SKIN_RECORD + 4);
    }
    pk_skins_layout skl = pk_skins_layout_of(ns, total);
    if (L->sec[PK_SKINS].present && (r = expect_size(L, PK_SKINS, skl.size))) return r;
    if (n == 0 && ns == 0) return OSSA_OK;

    ossa__layout lay = {0, false};
    size_t o_par = ossa__layout_add(&lay, n, sizeof(int32_t));
    size_t o_rest = ossa__layout_add(&lay, n, sizeof(ossa_transform));
    size_t o_names = ossa__layout_add(&lay, n, sizeof(char *));
    size_t o_jos = ossa__layout_add(&lay, n, sizeof(uint32_t));
    size_t o_skins = ossa__layout_add(&lay, ns, sizeof(ossa_skin_desc));
    size_t o_sj = ossa__layout_add(&lay, (size_t)total, sizeof(uint32_t));
    size_t o_ibm = ossa__layout_add(&lay, (size_t)total, sizeof(ossa_mat4));
    if (lay.overflow) return fail(L, OSSA_ERROR_LIMIT, PK_SKELETON, NULL, 0, "too large");
    uint8_t *scratch = ossa__alloc(&L->al, lay.size);
    if (!scratch) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_SKELETON, NULL, 0, "out of memory (%zu bytes)", lay.size);
    skeleton_scratch x = {
        .parents = (int32_t *)(void *)(scratch + o_par), .rest = (ossa_transform *)(void *)(scratch + o_rest),
        .names = (const char **)(void *)(scratch + o_names), .jos = (uint32_t *)(void *)(scratch + o_jos),
        .skins = (ossa_skin_desc *)(void *)(scratch + o_skins), .sj = (uint32_t *)(void *)(scratch + o_sj),
        .ibm = (ossa_mat4 *)(void *)(scratch + o_ibm)};
    const uint8_t *p = n ? sec_data(L, PK_SKELETON) : NULL;
    r = n ? read_joints(L, p, &l, n, &x) : OSSA_OK;
    if (!r) r = read_skins(L, sk, &skl, ns, total, n, &x);
    if (!r) {
        ossa_skeleton_desc desc = {n, x.parents, x.rest, x.names, ns, x.skins, L->metres_per_unit};
        r = ossa_skeleton_create(&desc, &L->al, &a->skeleton);
        if (r == OSSA_ERROR_OUT_OF_MEMORY) r = fail(L, r, PK_SKELETON, NULL, 0, "out of memory");
        else if (r) r = fail(L, OSSA_ERROR_INVALID_DATA, PK_SKELETON, NULL, 0, "refused by ossa_skeleton_create (%s)",
                             ossa_result_string(r));
    }
    if (!r && n) { /* the joint order is kept (parents first); the stored maps and bind pose apply */
        ossa_skeleton *s = a->skeleton;
        memcpy(s->source_index, p + l.source_index, (size_t)n * 4);
        memcpy(s->joint_of_source, x.jos, (size_t)n * 4);
        memcpy(s->bind, p + l.bind, (size_t)n * sizeof(ossa_transform));
    }
    ossa__free(&L->al, scratch);
    L->joints = n;
    L->skins = ns;
    return r;
}

/* ---- node and mesh infos ---- */

static ossa_result read_mesh_infos(pl *L, ossa_asset *a) {
    uint32_t n;
    const uint8_t *p;
    ossa_result r = records(L, PK_MESH_INFOS, PK_MESH_INFO_RECORD, &n, &p);
    if (r || n == 0) return r;
    /* one block: the array, then the names */
    ossa__layout lay = {0, false};
    ossa__layout_add(&lay, n, sizeof(ossa_mesh_info));
    size_t o_names = lay.size;
    for (uint32_t m = 0; m < n; m++) {
        const char *nm;
        if ((r = name_at(L, pk_rd_u32(p + (uint64_t)m * PK_MESH_INFO_RECORD), PK_MESH_INFOS, "mesh info", m, &nm))) return r;
        lay.size += strlen(nm) + 1;
    }
    uint8_t *blk = ossa__alloc(&L->al, lay.size);
    if (!blk) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_MESH_INFOS, NULL, 0, "out of memory");
    a->mesh_infos = (ossa_mesh_info *)(void *)blk;
    a->mesh_info_count = n;
    char *q = (char *)blk + o_names;
    for (uint32_t m = 0; m < n; m++) {
        const uint8_t *rec = p + (uint64_t)m * PK_MESH_INFO_RECORD;
        const char *nm = L->strings + pk_rd_u32(rec);
        size_t len = strlen(nm) + 1;
        memcpy(q, nm, len);
        a->mesh_infos[m].name = q;
        a->mesh_infos[m].primitive_count = pk_rd_u32(rec + 4);
        a->mesh_infos[m].target_count = pk_rd_u32(rec + 8);
        q += len;
    }
    L->mesh_infos = n;
    return OSSA_OK;
}

static ossa_result read_nodes(pl *L, ossa_asset *a) {
    uint32_t n;
    const uint8_t *p;
    ossa_result r = records(L, PK_NODES, PK_NODE_RECORD, &n, &p);
    if (r || n == 0) return r;
    if (n != L->joints)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_NODES, NULL, 0, "%u nodes for %u joints (every node is a joint)", n,
                    L->joints);
    a->nodes = ossa__alloc_array(&L->al, n, sizeof *a->nodes);
    if (!a->nodes) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_NODES, NULL, 0, "out of memory");
    a->node_count = n;
    const ossa_skeleton *s = a->skeleton;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *rec = p + (uint64_t)i * PK_NODE_RECORD;
        ossa_node_info *ni = &a->nodes[i];
        uint32_t j = s->joint_of_source[i];
        ni->joint = j;
        ni->name = s->names[j];
        ni->parent = s->parents[j] >= 0 ? (int32_t)s->source_index[s->parents[j]] : -1;
        ni->mesh = pk_rd_i32(rec);
        ni->skin = pk_rd_i32(rec + 4);
        uint32_t flags = pk_rd_u32(rec + 8);
        if (ni->mesh < -1 || (ni->mesh >= 0 && (uint32_t)ni->mesh >= L->mesh_infos))
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_NODES, "node", i, "mesh %d >= %u meshes", ni->mesh, L->mesh_infos);
        if (ni->skin < -1 || (ni->skin >= 0 && (uint32_t)ni->skin >= L->skins))
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_NODES, "node", i, "skin %d >= %u skins", ni->skin, L->skins);
        if (flags & ~(PK_NODE_HAD_MATRIX | PK_NODE_MATRIX_NOT_TRS))
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_NODES, "node", i, "unknown flags 0x%x", flags);
        ni->had_matrix = (flags & PK_NODE_HAD_MATRIX) != 0;
        ni->matrix_not_trs = (flags & PK_NODE_MATRIX_NOT_TRS) != 0;
        if (first_non_finite(rec + 16, 16) < 16)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_NODES, "node", i, "non-finite matrix");
        memcpy(ni->matrix.m, rec + 16, 64);
    }
    return OSSA_OK;
}

/* ---- meshes ---- */

static const char *const STREAM_NAME[PKST_COUNT] = {"positions", "normals", "tangents", "uv0", "uv1", "joints",
                                                    "weights", "indices", "default weights", "targets"};

/* Resolves a range of `bytes` at `offset` inside section t (item `item` `index`, array
 * `what`): offset 0 = absent (*out NULL). Present ranges lie after the section's record
 * table (`table` bytes), 16-byte aligned, inside the section, and all ranges of a section
 * together (*total) fit in it, so none is read twice and a small file cannot make the
 * loader allocate much more than its size. */
static ossa_result range_at(pl *L, pk_type t, const char *item, uint64_t index, uint64_t table, const char *what,
                            uint64_t offset, uint64_t bytes, uint64_t *total, const uint8_t **out) {
    const pk_section *s = &L->sec[t];
    *out = NULL;
    if (offset == 0) return OSSA_OK;
    if (offset % 16 || offset < table || offset > s->size || bytes > s->size - offset)
        return fail(L, OSSA_ERROR_PARSE, t, item, index,
                    "%s: %llu bytes at offset %llu are not a 16-byte aligned range after the records, inside the %llu-byte section",
                    what, (unsigned long long)bytes, (unsigned long long)offset, (unsigned long long)s->size);
    *total += bytes;
    if (*total > s->size)
        return fail(L, OSSA_ERROR_PARSE, t, item, index, "%s: streams overlap (%llu bytes of streams in %llu)", what,
                    (unsigned long long)*total, (unsigned long long)s->size);
    *out = L->d + s->offset + offset;
    return OSSA_OK;
}

/* One stream of a mesh (see range_at). */
static ossa_result stream_at(pl *L, uint32_t mesh, const char *what, uint64_t offset, uint64_t bytes, uint64_t *total,
                             const uint8_t **out) {
    return range_at(L, PK_MESHES, "mesh", mesh, (uint64_t)L->sec[PK_MESHES].count * PK_MESH_RECORD, what, offset, bytes,
                    total, out);
}

static ossa_result check_floats(pl *L, uint32_t mesh, const char *what, const uint8_t *p, uint64_t n) {
    if (!p) return OSSA_OK;
    uint64_t bad = first_non_finite(p, n);
    if (bad < n)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", mesh, "%s: float %llu is not finite", what,
                    (unsigned long long)bad);
    return OSSA_OK;
}

/* The mesh record's counts, skin, node and source indices into desc, checked against the
 * sections read before. */
static ossa_result read_mesh_record(pl *L, uint32_t i, const uint8_t *rec, ossa_mesh *desc) {
    ossa_result r;
    if ((r = name_at(L, pk_rd_u32(rec + PKM_NAME), PK_MESHES, "mesh", i, &desc->name))) return r;
    desc->vertex_count = pk_rd_u32(rec + PKM_VERTEX_COUNT);
    uint32_t inf = desc->influences = pk_rd_u32(rec + PKM_INFLUENCES);
    desc->index_count = pk_rd_u32(rec + PKM_INDEX_COUNT);
    desc->target_count = pk_rd_u32(rec + PKM_TARGET_COUNT);
    desc->skin = pk_rd_i32(rec + PKM_SKIN);
    desc->node = pk_rd_i32(rec + PKM_NODE);
    desc->source_mesh = pk_rd_u32(rec + PKM_SOURCE_MESH);
    desc->source_primitive = pk_rd_u32(rec + PKM_SOURCE_PRIMITIVE);
    if (inf != 0 && inf != 4 && inf != 8)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "%u influences per vertex (0, 4 or 8)", inf);
    if (desc->skin < -1 || (desc->skin >= 0 && (uint32_t)desc->skin >= L->skins))
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "skin %d >= %u skins", desc->skin, L->skins);
    if (inf && desc->skin < 0) return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "joint influences without a skin");
    if (desc->node < -1 || (desc->node >= 0 && (uint32_t)desc->node >= L->joints))
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "node joint %d >= %u joints", desc->node, L->joints);
    if (L->mesh_infos && desc->source_mesh >= L->mesh_infos)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "source mesh %u >= %u meshes", desc->source_mesh,
                    L->mesh_infos);
    return OSSA_OK;
}

/* The mesh's streams (st[k]: NULL when absent), each its size for desc's counts, and the ones
 * its counts require present. */
static ossa_result read_mesh_streams(pl *L, uint32_t i, const uint8_t *rec, const ossa_mesh *desc, uint64_t *total,
                                     const uint8_t *st[PKST_COUNT]) {
    uint64_t nv = desc->vertex_count, inf = desc->influences, tc = desc->target_count;
    uint64_t bytes[PKST_COUNT] = {nv * 12, nv * 12, nv * 16, nv * 8, nv * 8, nv * inf * 2, nv * inf * 4,
                                  (uint64_t)desc->index_count * 4, tc * 4, tc * PK_TARGET_RECORD};
    ossa_result r;
    for (int k = 0; k < PKST_COUNT; k++)
        if ((r = stream_at(L, i, STREAM_NAME[k], pk_rd_u64(rec + PKM_STREAMS + 8 * (uint64_t)k), bytes[k], total, &st[k])))
            return r;
    if (nv && !st[PKST_POSITIONS]) return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "no positions");
    if (inf && nv && (!st[PKST_JOINTS] || !st[PKST_WEIGHTS]))
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "%u influences without joints and weights", desc->influences);
    if (!inf && (st[PKST_JOINTS] || st[PKST_WEIGHTS]))
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "joints or weights with 0 influences");
    if (desc->index_count && !st[PKST_INDICES])
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "%u indices without an index stream", desc->index_count);
    if (tc && !st[PKST_TARGETS])
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "%u morph targets without a target table", desc->target_count);
    return OSSA_OK;
}

/* The first joint index >= the joint count (a scan for the largest first: the common case
 * has none), or OK. */
static ossa_result check_joint_indices(pl *L, uint32_t i, const uint8_t *p, uint64_t n, uint32_t inf) {
    uint16_t top = 0, v;
    for (uint64_t k = 0; k < n; k++) {
        memcpy(&v, p + 2 * k, 2);
        top = v > top ? v : top;
    }
    if (top < L->joints) return OSSA_OK;
    for (uint64_t k = 0; k < n; k++) {
        memcpy(&v, p + 2 * k, 2);
        if (v >= L->joints)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "vertex %llu: joint index %u >= %u joints",
                        (unsigned long long)(k / inf), v, L->joints);
    }
    return OSSA_OK;
}

/* The first vertex index >= nv (as check_joint_indices), or OK. */
static ossa_result check_vertex_indices(pl *L, uint32_t i, const uint8_t *p, uint64_t n, uint64_t nv) {
    uint32_t top = 0;
    for (uint64_t k = 0; k < n; k++) {
        uint32_t v = pk_rd_u32(p + 4 * k);
        top = v > top ? v : top;
    }
    if (top < nv) return OSSA_OK;
    for (uint64_t k = 0; k < n; k++)
        if (pk_rd_u32(p + 4 * k) >= nv)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "index %llu is %u >= %llu vertices",
                        (unsigned long long)k, pk_rd_u32(p + 4 * k), (unsigned long long)nv);
    return OSSA_OK;
}

/* The streams' contents: finite floats, weights >= 0, joint and vertex indices in range. */
static ossa_result check_mesh_streams(pl *L, uint32_t i, const ossa_mesh *desc, const uint8_t *const st[PKST_COUNT]) {
    static const uint32_t floats_per_vertex[PKST_JOINTS] = {3, 3, 4, 2, 2};
    uint64_t nv = desc->vertex_count, inf = desc->influences;
    ossa_result r;
    for (int k = 0; k < PKST_JOINTS; k++)
        if ((r = check_floats(L, i, STREAM_NAME[k], st[k], nv * floats_per_vertex[k]))) return r;
    if ((r = check_floats(L, i, "weights", st[PKST_WEIGHTS], nv * inf))) return r;
    if ((r = check_floats(L, i, "default weights", st[PKST_DEFAULT_WEIGHTS], desc->target_count))) return r;
    if (st[PKST_WEIGHTS]) {
        uint32_t neg = 0;
        for (uint64_t k = 0; k < nv * inf; k++) neg |= pk_rd_u32(st[PKST_WEIGHTS] + 4 * k) >> 31;
        if (neg) return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "a negative joint weight");
    }
    if (st[PKST_JOINTS] && (r = check_joint_indices(L, i, st[PKST_JOINTS], nv * inf, desc->influences))) return r;
    if (st[PKST_INDICES]) return check_vertex_indices(L, i, st[PKST_INDICES], desc->index_count, nv);
    return OSSA_OK;
}

/* The morph targets' delta streams (target table at `table`, tc records) into *out, allocated
 * (NULL for tc = 0; the caller frees it). */
static ossa_result read_mesh_targets(pl *L, uint32_t i, const uint8_t *table, uint32_t tc, uint64_t nv, uint64_t *total,
                                     ossa_morph_target **out) {
    static const char *const TARGET_STREAM[3] = {"position deltas", "normal deltas", "tangent deltas"};
    *out = NULL;
    if (!tc) return OSSA_OK;
    ossa_morph_target *targets = ossa__alloc_array(&L->al, tc, sizeof *targets);
    if (!targets) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_MESHES, "mesh", i, "out of memory");
    ossa_result r = OSSA_OK;
    for (uint32_t t = 0; t < tc && !r; t++) {
        const uint8_t *tp[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3 && !r; k++) {
            char what[48];
            snprintf(what, sizeof what, "target %u %s", t, TARGET_STREAM[k]);
            r = stream_at(L, i, what, pk_rd_u64(table + (uint64_t)t * PK_TARGET_RECORD + 8 * (uint64_t)k), nv * 12, total,
                          &tp[k]);
            if (!r) r = check_floats(L, i, what, tp[k], nv * 3);
        }
        /* the pointers are only read (memcpy) by ossa_mesh_create */
        memcpy(&targets[t].positions, &tp[0], sizeof tp[0]);
        memcpy(&targets[t].normals, &tp[1], sizeof tp[1]);
        memcpy(&targets[t].tangents, &tp[2], sizeof tp[2]);
    }
    if (r) ossa__free(&L->al, targets);
    else *out = targets;
    return r;
}

/* The mesh surfaces section's record of mesh i (when the file has one): its material and
 * COLOR_0 into desc. */
static ossa_result read_mesh_surface(pl *L, uint32_t i, ossa_mesh *desc) {
    desc->material = -1;
    if (!L->surfaces) return OSSA_OK;
    uint64_t nv = desc->vertex_count;
    const uint8_t *su = L->surfaces + (uint64_t)i * PK_SURFACE_RECORD, *col = NULL;
    int32_t mat = pk_rd_i32(su + PKSU_MATERIAL);
    if (mat < -1 || (mat >= 0 && (uint32_t)mat >= L->materials))
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_SURFACES, "mesh", i, "material %d >= %u materials", mat, L->materials);
    ossa_result r = range_at(L, PK_SURFACES, "mesh", i, (uint64_t)L->sec[PK_SURFACES].count * PK_SURFACE_RECORD, "colors",
                             pk_rd_u64(su + PKSU_COLORS), nv * 16, &L->surface_total, &col);
    if (r) return r;
    uint64_t bad = col ? first_non_finite(col, nv * 4) : 0;
    if (col && bad < nv * 4)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_SURFACES, "mesh", i, "colors: float %llu is not finite",
                    (unsigned long long)bad);
    desc->material = mat;
    memcpy(&desc->colors, &col, sizeof col);
    return OSSA_OK;
}

/* Mesh i from its record: counts, streams, their contents, morph targets and surface, then
 * ossa_mesh_create (which copies the streams: the pointers here are only read, and the data is
 * aligned, see load). */
static ossa_result read_mesh(pl *L, uint32_t i, const uint8_t *rec, uint64_t *total, ossa_mesh **out) {
    ossa_mesh desc;
    memset(&desc, 0, sizeof desc);
    const uint8_t *st[PKST_COUNT];
    ossa_morph_target *targets = NULL;
    ossa_result r = read_mesh_record(L, i, rec, &desc);
    if (!r) r = read_mesh_streams(L, i, rec, &desc, total, st);
    if (!r) r = check_mesh_streams(L, i, &desc, st);
    if (!r) r = read_mesh_targets(L, i, st[PKST_TARGETS], desc.target_count, desc.vertex_count, total, &targets);
    if (r) return r;
#define STREAM_PTR(field, k) memcpy(&desc.field, &st[k], sizeof st[k])
    STREAM_PTR(positions, PKST_POSITIONS);
    STREAM_PTR(normals, PKST_NORMALS);
    STREAM_PTR(tangents, PKST_TANGENTS);
    STREAM_PTR(uv0, PKST_UV0);
    STREAM_PTR(uv1, PKST_UV1);
    STREAM_PTR(joints, PKST_JOINTS);
    STREAM_PTR(weights, PKST_WEIGHTS);
    STREAM_PTR(indices, PKST_INDICES);
    STREAM_PTR(default_weights, PKST_DEFAULT_WEIGHTS);
#undef STREAM_PTR
    desc.targets = targets;
    r = read_mesh_surface(L, i, &desc);
    if (r) {
        ossa__free(&L->al, targets);
        return r;
    }
    r = ossa_mesh_create(&desc, &L->al, out);
    ossa__free(&L->al, targets);
    if (r == OSSA_ERROR_OUT_OF_MEMORY) return fail(L, r, PK_MESHES, "mesh", i, "out of memory");
    if (r) return fail(L, OSSA_ERROR_INVALID_DATA, PK_MESHES, "mesh", i, "refused by ossa_mesh_create (%s)", ossa_result_string(r));
    return OSSA_OK;
}

/* ---- images, materials, mesh surfaces (read before the meshes that use them) ---- */

static ossa_result read_images(pl *L, ossa_asset *a) {
    const pk_section *s = &L->sec[PK_IMAGES];
    if (!s->present || s->count == 0) return OSSA_OK;
    uint32_t n = s->count;
    uint64_t table = (uint64_t)n * PK_IMAGE_RECORD, total = 0, prev_end = table;
    if (table > s->size)
        return fail(L, OSSA_ERROR_PARSE, PK_IMAGES, NULL, 0, "%u image records need %llu bytes, the section has %llu", n,
                    (unsigned long long)table, (unsigned long long)s->size);
    const uint8_t *p = sec_data(L, PK_IMAGES);
    /* everything checked first, then one block: the array, the bytes, the strings */
    ossa__layout lay = {0, false};
    size_t o_arr = ossa__layout_add(&lay, n, sizeof(ossa_image)), strings = 0;
    ossa_result r;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *rec = p + (uint64_t)i * PK_IMAGE_RECORD, *bytes;
        uint32_t flags = pk_rd_u32(rec + PKI_FLAGS);
        uint64_t size = pk_rd_u64(rec + PKI_SIZE), off = pk_rd_u64(rec + PKI_OFFSET);
        if (flags & ~PK_IMAGE_HAS_DATA)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_IMAGES, "image", i, "unknown flags 0x%x", flags);
        if ((off == 0) != (size == 0) || (size && !(flags & PK_IMAGE_HAS_DATA)))
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_IMAGES, "image", i,
                        "%llu bytes at offset %llu (flags 0x%x): bytes need both, and the has-data flag",
                        (unsigned long long)size, (unsigned long long)off, flags);
        if ((r = range_at(L, PK_IMAGES, "image", i, table, "bytes", off, size, &total, &bytes))) return r;
        if (size && off < prev_end) /* the images' bytes follow each other */
            return fail(L, OSSA_ERROR_PARSE, PK_IMAGES, "image", i, "bytes: offset %llu overlaps what precedes it (ends at %llu)",
                        (unsigned long long)off, (unsigned long long)prev_end);
        if (size) prev_end = off + size;
        ossa__layout_add(&lay, (size_t)size, 1);
        static const uint32_t FIELD[3] = {PKI_NAME, PKI_URI, PKI_MIME};
        for (int k = 0; k < 3; k++) {
            const char *str;
            if ((r = name_at(L, pk_rd_u32(rec + FIELD[k]), PK_IMAGES, "image", i, &str))) return r;
            strings += strlen(str) + 1;
        }
    }
    size_t o_strings = lay.size;
    lay.size += strings;
    if (lay.overflow) return fail(L, OSSA_ERROR_LIMIT, PK_IMAGES, NULL, 0, "too large");
    uint8_t *blk = ossa__alloc(&L->al, lay.size);
    if (!blk) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_IMAGES, NULL, 0, "out of memory (%zu bytes)", lay.size);
    a->images = (ossa_image *)(void *)(blk + o_arr);
    a->image_count = n;
    ossa__layout again = {0, false}; /* the same layout again, for the byte offsets */
    ossa__layout_add(&again, n, sizeof(ossa_image));
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *rec = p + (uint64_t)i * PK_IMAGE_RECORD;
        uint64_t size = pk_rd_u64(rec + PKI_SIZE);
        size_t o_data = ossa__layout_add(&again, (size_t)size, 1);
        ossa_image *im = &a->images[i];
        im->size = (size_t)size;
        im->data = (pk_rd_u32(rec + PKI_FLAGS) & PK_IMAGE_HAS_DATA) ? blk + o_data : NULL;
        if (size) memcpy(blk + o_data, p + pk_rd_u64(rec + PKI_OFFSET), (size_t)size);
    }
    char *q = (char *)blk + o_strings;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *rec = p + (uint64_t)i * PK_IMAGE_RECORD;
        const char **dst[3] = {&a->images[i].name, &a->images[i].uri, &a->images[i].mime_type};
        static const uint32_t FIELD[3] = {PKI_NAME, PKI_URI, PKI_MIME};
        for (int k = 0; k < 3; k++) {
            const char *src = L->strings + pk_rd_u32(rec + FIELD[k]);
            size_t len = strlen(src) + 1;
            memcpy(q, src, len);
            *dst[k] = q;
            q += len;
        }
    }
    return OSSA_OK;
}

static ossa_result read_materials(pl *L, ossa_asset *a) {
    uint32_t n;
    const uint8_t *p;
    ossa_result r = records(L, PK_MATERIALS, PK_MATERIAL_RECORD, &n, &p);
    if (r || n == 0) return r;
    ossa__layout lay = {0, false};
    ossa__layout_add(&lay, n, sizeof(ossa_material));
    size_t o_names = lay.size;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *rec = p + (uint64_t)i * PK_MATERIAL_RECORD;
        const char *nm;
        if ((r = name_at(L, pk_rd_u32(rec + PKMA_NAME), PK_MATERIALS, "material", i, &nm))) return r;
        lay.size += strlen(nm) + 1;
        int32_t image = pk_rd_i32(rec + PKMA_IMAGE);
        uint32_t texcoord = pk_rd_u32(rec + PKMA_TEXCOORD), mode = pk_rd_u32(rec + PKMA_ALPHA_MODE);
        uint32_t flags = pk_rd_u32(rec + PKMA_FLAGS);
        if (image < -1 || (image >= 0 && (uint32_t)image >= a->image_count))
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_MATERIALS, "material", i, "image %d >= %u images", image,
                        a->image_count);
        if (texcoord > 1)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_MATERIALS, "material", i, "texture coordinate set %u (0 or 1)",
                        texcoord);
        for (uint32_t k = PKMA_WRAP_S; k <= PKMA_MIN_FILTER; k += 4)
            if (pk_rd_u32(rec + k) > PK_SAMPLER_MAX)
                return fail(L, OSSA_ERROR_INVALID_DATA, PK_MATERIALS, "material", i, "sampler value %u > %u",
                            pk_rd_u32(rec + k), PK_SAMPLER_MAX);
        if (mode > OSSA_ALPHA_MODE_BLEND)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_MATERIALS, "material", i, "alpha mode %u", mode);
        if (flags & ~PK_MATERIAL_DOUBLE_SIDED)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_MATERIALS, "material", i, "unknown flags 0x%x", flags);
        if (first_non_finite(rec + PKMA_BASE_COLOR, 4) < 4 || first_non_finite(rec + PKMA_ALPHA_CUTOFF, 1) < 1)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_MATERIALS, "material", i, "non-finite base colour or alpha cutoff");
    }
    uint8_t *blk = ossa__alloc(&L->al, lay.size);
    if (!blk) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_MATERIALS, NULL, 0, "out of memory");
    a->materials = (ossa_material *)(void *)blk;
    a->material_count = n;
    char *q = (char *)blk + o_names;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *rec = p + (uint64_t)i * PK_MATERIAL_RECORD;
        ossa_material *m = &a->materials[i];
        ossa_texture_ref *t = &m->base_color_texture;
        memset(m, 0, sizeof *m);
        const char *nm = L->strings + pk_rd_u32(rec + PKMA_NAME);
        size_t len = strlen(nm) + 1;
        memcpy(q, nm, len);
        m->name = q;
        q += len;
        memcpy(m->base_color, rec + PKMA_BASE_COLOR, 16);
        t->image = pk_rd_i32(rec + PKMA_IMAGE);
        t->texcoord = pk_rd_u32(rec + PKMA_TEXCOORD);
        t->wrap_s = pk_rd_u32(rec + PKMA_WRAP_S);
        t->wrap_t = pk_rd_u32(rec + PKMA_WRAP_T);
        t->mag_filter = pk_rd_u32(rec + PKMA_MAG_FILTER);
        t->min_filter = pk_rd_u32(rec + PKMA_MIN_FILTER);
        m->alpha_mode = (ossa_alpha_mode)pk_rd_u32(rec + PKMA_ALPHA_MODE);
        memcpy(&m->alpha_cutoff, rec + PKMA_ALPHA_CUTOFF, 4);
        m->double_sided = (pk_rd_u32(rec + PKMA_FLAGS) & PK_MATERIAL_DOUBLE_SIDED) != 0;
    }
    L->materials = n;
    return OSSA_OK;
}

/* The mesh surfaces section: its records are used per mesh by read_mesh. */
static ossa_result read_surfaces_table(pl *L) {
    const pk_section *s = &L->sec[PK_SURFACES];
    if (!s->present || s->count == 0) return OSSA_OK;
    uint32_t meshes = L->sec[PK_MESHES].present ? L->sec[PK_MESHES].count : 0;
    if (s->count != meshes)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_SURFACES, NULL, 0, "%u records for %u meshes", s->count, meshes);
    if ((uint64_t)s->count * PK_SURFACE_RECORD > s->size)
        return fail(L, OSSA_ERROR_PARSE, PK_SURFACES, NULL, 0, "%u records need %llu bytes, the section has %llu", s->count,
                    (unsigned long long)s->count * PK_SURFACE_RECORD, (unsigned long long)s->size);
    L->surfaces = sec_data(L, PK_SURFACES);
    return OSSA_OK;
}

static ossa_result read_meshes(pl *L, ossa_asset *a) {
    const pk_section *s = &L->sec[PK_MESHES];
    if (!s->present || s->count == 0) return OSSA_OK;
    uint32_t n = s->count;
    if ((uint64_t)n * PK_MESH_RECORD > s->size)
        return fail(L, OSSA_ERROR_PARSE, PK_MESHES, NULL, 0, "%u mesh records need %llu bytes, the section has %llu", n,
                    (unsigned long long)n * PK_MESH_RECORD, (unsigned long long)s->size);
    a->meshes = ossa__alloc_array(&L->al, n, sizeof *a->meshes);
    if (!a->meshes) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_MESHES, NULL, 0, "out of memory");
    const uint8_t *p = sec_data(L, PK_MESHES);
    uint64_t total = 0; /* stream bytes referenced so far: streams may not share bytes */
    for (uint32_t i = 0; i < n; i++) {
        ossa_mesh *m = NULL;
        ossa_result r = read_mesh(L, i, p + (uint64_t)i * PK_MESH_RECORD, &total, &m);
        if (r) return r;
        a->meshes[a->mesh_count++] = m;
    }
    return OSSA_OK;
}

/* ---- clips and warnings ---- */

static ossa_result read_clips(pl *L, ossa_asset *a) {
    const pk_section *s = &L->sec[PK_CLIPS];
    if (!s->present || s->count == 0) return OSSA_OK;
    uint32_t n = s->count;
    uint64_t table = (uint64_t)n * PK_CLIP_RECORD, total = 0, prev_end = 0;
    if (table > s->size)
        return fail(L, OSSA_ERROR_PARSE, PK_CLIPS, NULL, 0, "%u clip records need %llu bytes, the section has %llu", n,
                    (unsigned long long)table, (unsigned long long)s->size);
    const uint8_t *p = sec_data(L, PK_CLIPS);
    for (uint32_t c = 0; c < n; c++) { /* every block in bounds before any is opened */
        uint64_t off = pk_rd_u64(p + (uint64_t)c * PK_CLIP_RECORD), size = pk_rd_u64(p + (uint64_t)c * PK_CLIP_RECORD + 8);
        if (off % 16 || off < table || off > s->size || size > s->size - off || size == 0)
            return fail(L, OSSA_ERROR_PARSE, PK_CLIPS, "clip", c,
                        "%llu bytes at offset %llu are not a 16-byte aligned block after the records, inside the %llu-byte section",
                        (unsigned long long)size, (unsigned long long)off, (unsigned long long)s->size);
        total += size;
        if (total > s->size)
            return fail(L, OSSA_ERROR_PARSE, PK_CLIPS, "clip", c, "blocks overlap (%llu bytes of blocks in %llu)",
                        (unsigned long long)total, (unsigned long long)s->size);
        if (off < prev_end) /* the writer stores blocks in order: any overlap shows here */
            return fail(L, OSSA_ERROR_PARSE, PK_CLIPS, "clip", c, "blocks overlap (offset %llu, the previous block ends at %llu)",
                        (unsigned long long)off, (unsigned long long)prev_end);
        prev_end = off + size;
    }
    a->built_clips = ossa__alloc_array(&L->al, n, sizeof *a->built_clips);
    if (!a->built_clips) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_CLIPS, NULL, 0, "out of memory");
    for (uint32_t c = 0; c < n; c++) {
        uint64_t off = pk_rd_u64(p + (uint64_t)c * PK_CLIP_RECORD), size = pk_rd_u64(p + (uint64_t)c * PK_CLIP_RECORD + 8);
        ossa_built_clip *clip = NULL;
        ossa_diagnostic cd;
        memset(&cd, 0, sizeof cd);
        ossa_result r = ossa_built_clip_load(p + off, (size_t)size, &L->al, &clip, &cd);
        if (r) return fail(L, r, PK_CLIPS, "clip", c, "%s", cd.message[0] ? cd.message : ossa_result_string(r));
        a->built_clips[a->built_clip_count++] = clip;
        if (ossa_built_clip_joint_count(clip) != L->joints)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIPS, "clip", c, "built for %u joints, the skeleton has %u",
                        ossa_built_clip_joint_count(clip), L->joints);
        if (!ossa_built_clip_matches(clip, a->skeleton ? a->skeleton->rest : NULL, L->joints))
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIPS, "clip", c,
                        "'%s' was built with another rest pose than the file's skeleton (reference hash)",
                        ossa_built_clip_name(clip));
        for (uint32_t k = 0; k < ossa_built_clip_weight_track_count(clip); k++)
            if (ossa_built_clip_weight_track_joint(clip, k) >= L->joints)
                return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIPS, "clip", c, "weight track %u drives joint %u >= %u joints",
                            k, ossa_built_clip_weight_track_joint(clip, k), L->joints);
    }
    return OSSA_OK;
}

/* One clip report record: finite non-negative measures, and either "none" (every worst_* field 0)
 * or a worst place inside the asset (a mesh, one of its vertices, a joint). */
static ossa_result check_clip_report(pl *L, const ossa_asset *a, uint32_t c, const ossa_clip_report *cr) {
    const float values[4] = {cr->precision, cr->character_height, cr->max_vertex_error, cr->worst_vertex_time};
    static const char *const names[4] = {"precision", "character height", "max vertex error", "worst vertex time"};
    for (int k = 0; k < 4; k++)
        if (!isfinite(values[k]) || (k < 3 && values[k] < 0.0f))
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, "clip", c, "%s %g is not a finite value >= 0",
                        names[k], (double)values[k]);
    if (cr->vertex_meshes > a->mesh_count)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, "clip", c, "%u meshes checked, the file has %u",
                    cr->vertex_meshes, a->mesh_count);
    if (!cr->vertex_meshes && (cr->max_vertex_error != 0.0f || cr->vertex_times || cr->vertex_times_unchecked))
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, "clip", c, "vertex measurements without a mesh checked");
    if (!cr->vertex_meshes || cr->max_vertex_error == 0.0f) {
        if (cr->worst_mesh || cr->worst_vertex || cr->worst_vertex_joint || cr->worst_vertex_time != 0.0f)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, "clip", c, "a worst vertex without a vertex error");
        return OSSA_OK;
    }
    if (cr->worst_mesh >= a->mesh_count)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, "clip", c, "worst mesh %u >= %u meshes", cr->worst_mesh,
                    a->mesh_count);
    if (cr->worst_vertex >= a->meshes[cr->worst_mesh]->vertex_count)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, "clip", c, "worst vertex %u >= %u vertices of mesh %u",
                    cr->worst_vertex, a->meshes[cr->worst_mesh]->vertex_count, cr->worst_mesh);
    if (cr->worst_vertex_joint >= L->joints)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, "clip", c, "worst vertex joint %u >= %u joints",
                    cr->worst_vertex_joint, L->joints);
    return OSSA_OK;
}

/* The clip reports section (optional): one record per built clip. */
static ossa_result read_clip_reports(pl *L, ossa_asset *a) {
    uint32_t n;
    const uint8_t *p;
    ossa_result r = records(L, PK_CLIP_REPORTS, PK_CLIP_REPORT_RECORD, &n, &p);
    if (r || n == 0) return r;
    if (n != a->built_clip_count)
        return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, NULL, 0, "%u reports for %u built clips", n,
                    a->built_clip_count);
    a->clip_reports = ossa__alloc_array(&L->al, n, sizeof *a->clip_reports);
    if (!a->clip_reports) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_CLIP_REPORTS, NULL, 0, "out of memory");
    a->clip_report_count = n;
    for (uint32_t c = 0; c < n; c++) {
        const uint8_t *rec = p + (uint64_t)c * PK_CLIP_REPORT_RECORD;
        ossa_clip_report *cr = &a->clip_reports[c];
        cr->precision = rd_f32(rec + PKCR_PRECISION);
        cr->character_height = rd_f32(rec + PKCR_HEIGHT);
        cr->vertex_meshes = pk_rd_u32(rec + PKCR_VERTEX_MESHES);
        cr->max_vertex_error = rd_f32(rec + PKCR_MAX_VERTEX_ERROR);
        cr->worst_mesh = pk_rd_u32(rec + PKCR_WORST_MESH);
        cr->worst_vertex = pk_rd_u32(rec + PKCR_WORST_VERTEX);
        cr->worst_vertex_joint = pk_rd_u32(rec + PKCR_WORST_JOINT);
        cr->worst_vertex_time = rd_f32(rec + PKCR_WORST_TIME);
        cr->vertex_times = pk_rd_u32(rec + PKCR_VERTEX_TIMES);
        cr->vertex_times_unchecked = pk_rd_u32(rec + PKCR_VERTEX_TIMES_UNCHECKED);
        if (pk_rd_u64(rec + 40) != 0)
            return fail(L, OSSA_ERROR_INVALID_DATA, PK_CLIP_REPORTS, "clip", c, "reserved bytes are not 0");
        if ((r = check_clip_report(L, a, c, cr))) return r;
    }
    return OSSA_OK;
}

static ossa_result read_warnings(pl *L, ossa_asset *a) {
    uint32_t n;
    const uint8_t *p;
    ossa_result r = records(L, PK_WARNINGS, 4, &n, &p);
    if (r || n == 0) return r;
    a->warnings = ossa__alloc_array(&L->al, n, sizeof *a->warnings);
    if (!a->warnings) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_WARNINGS, NULL, 0, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const char *w;
        if ((r = name_at(L, pk_rd_u32(p + 4 * (uint64_t)i), PK_WARNINGS, "warning", i, &w))) return r;
        size_t len = strlen(w) + 1;
        char *copy = ossa__alloc(&L->al, len);
        if (!copy) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, PK_WARNINGS, NULL, 0, "out of memory");
        memcpy(copy, w, len);
        a->warnings[a->warning_count++] = copy;
    }
    return OSSA_OK;
}

/* ---- entry points ---- */

static size_t limit_of(const ossa_load_options *options) {
    return options && options->max_allocation ? options->max_allocation : DEFAULT_LIMIT;
}

/* `data` is 16-byte aligned here. */
static ossa_result load_aligned(const uint8_t *data, size_t size, const ossa_load_options *options, ossa_asset **out,
                                ossa_diagnostic *diag) {
    pl L;
    memset(&L, 0, sizeof L);
    L.d = data;
    L.size = size;
    L.diag = diag;
    L.al = ossa__allocator_resolve(options ? options->allocator : NULL);
    ossa_result r = read_header(&L);
    if (r) return r;
    if ((r = read_strings(&L))) return r;
    ossa_asset *a = ossa__alloc(&L.al, sizeof *a);
    if (!a) return fail(&L, OSSA_ERROR_OUT_OF_MEMORY, 0, NULL, 0, "out of memory");
    memset(a, 0, sizeof *a);
    a->allocator = L.al;
    if (!(r = read_meta(&L, a)) && !(r = read_skeleton(&L, a)) && !(r = read_mesh_infos(&L, a)) &&
        !(r = read_nodes(&L, a)) && !(r = read_images(&L, a)) && !(r = read_materials(&L, a)) &&
        !(r = read_surfaces_table(&L)) && !(r = read_meshes(&L, a)) && !(r = read_clips(&L, a)) &&
        !(r = read_clip_reports(&L, a)))
        r = read_warnings(&L, a);
    if (r) {
        ossa_asset_destroy(a);
        return r;
    }
    *out = a;
    return OSSA_OK;
}

ossa_result ossa_pack_load_memory(const void *data, size_t size, const ossa_load_options *options, ossa_asset **out,
                                  ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (out) *out = NULL;
    pl L = {.diag = diag};
    if (!out || !data || !size)
        return fail(&L, OSSA_ERROR_INVALID_ARGUMENT, 0, NULL, 0, "%s",
                    !out ? "out is NULL" : !data ? "data is NULL" : "empty input (size 0)");
    if (!pk_host_little_endian()) return fail(&L, OSSA_ERROR_UNSUPPORTED, 0, NULL, 0, "big-endian host");
    size_t limit = limit_of(options);
    bool aligned = ((uintptr_t)data & 15u) == 0;
    if (size > limit / (aligned ? 2 : 3))
        return fail(&L, OSSA_ERROR_LIMIT, 0, NULL, 0, "a packed file of %zu bytes may need %zu x that; max_allocation is %zu",
                    size, (size_t)(aligned ? 2 : 3), limit);
    if (aligned) return load_aligned(data, size, options, out, diag);
    /* misaligned caller memory: one aligned copy, so the loaded streams are aligned */
    ossa_allocator al = ossa__allocator_resolve(options ? options->allocator : NULL);
    void *copy = ossa__alloc(&al, size);
    if (!copy) return fail(&L, OSSA_ERROR_OUT_OF_MEMORY, 0, NULL, 0, "out of memory (%zu bytes)", size);
    memcpy(copy, data, size);
    ossa_result r = load_aligned(copy, size, options, out, diag);
    ossa__free(&al, copy);
    return r;
}

ossa_result ossa_pack_load_file(const char *path, const ossa_load_options *options, ossa_asset **out,
                                ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (out) *out = NULL;
    if (!out || !path) return OSSA_ERROR_INVALID_ARGUMENT;
    pl L = {.diag = diag};
    FILE *f = fopen(path, "rb");
    if (!f) return fail(&L, OSSA_ERROR_IO, 0, NULL, 0, "cannot open %s", path);
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return fail(&L, OSSA_ERROR_IO, 0, NULL, 0, "%s is not a regular file", path);
    }
    if (st.st_size <= 0) {
        fclose(f);
        return fail(&L, OSSA_ERROR_PARSE, 0, NULL, 0, "%s is empty", path);
    }
    size_t limit = limit_of(options);
    if ((uint64_t)st.st_size > limit / 3) {
        fclose(f);
        return fail(&L, OSSA_ERROR_LIMIT, 0, NULL, 0, "a packed file of %lld bytes may need 3 x that; max_allocation is %zu",
                    (long long)st.st_size, limit);
    }
    size_t size = (size_t)st.st_size;
    ossa_allocator al = ossa__allocator_resolve(options ? options->allocator : NULL);
    uint8_t *bytes = ossa__alloc(&al, size);
    if (!bytes) {
        fclose(f);
        return fail(&L, OSSA_ERROR_OUT_OF_MEMORY, 0, NULL, 0, "out of memory (%zu bytes)", size);
    }
    size_t got = fread(bytes, 1, size, f);
    fclose(f);
    ossa_result r;
    if (got != size) r = fail(&L, OSSA_ERROR_IO, 0, NULL, 0, "read %zu of %zu bytes of %s", got, size, path);
    else r = load_aligned(bytes, size, options, out, diag);
    ossa__free(&al, bytes);
    return r;
}

bool ossa_pack_detect(const void *data, size_t size) {
    return data && size >= PK_MAGIC_SIZE && memcmp(data, PK_MAGIC, PK_MAGIC_SIZE) == 0;
}

uint64_t ossa_pack_checksum(const void *data, size_t size) {
    if (!data || size <= OSSA_PACK_HEADER_SIZE) return 0;
    return ossa__xxh64((const uint8_t *)data + OSSA_PACK_HEADER_SIZE, size - OSSA_PACK_HEADER_SIZE, 0);
}
