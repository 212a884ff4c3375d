/* Automatic bone maps by name (docs/retargeting.md, "Automatic mapping"): each joint name is
 * normalised (namespace and known prefixes stripped, side read, case and separators dropped)
 * into a side and a word; words name profile bones through a synonym table; the spine chain
 * is then assigned along the hips -> neck path, and candidates that break the profile's
 * hierarchy are dropped. Allocates nothing. */
#include <ossa/retarget.h>

#include <stdio.h>
#include <string.h>

#define B(x) OSSA_HUMANOID_##x
#define WORD_MAX 64

enum { SIDE_NONE = 0, SIDE_LEFT, SIDE_RIGHT };
enum { CLASS_NONE = -1, CLASS_SPINE = -2 }; /* besides profile bones (left side for sided ones) */

typedef struct synonym {
    const char *word;
    int bone; /* a profile bone (the LEFT one for sided bones), or CLASS_SPINE */
    bool sided;
} synonym;

static const synonym SYNONYMS[] = {
    {"hips", B(HIPS), false}, {"hip", B(HIPS), false}, {"pelvis", B(HIPS), false},
    {"spine", CLASS_SPINE, false}, {"spine0", CLASS_SPINE, false}, {"spine1", CLASS_SPINE, false},
    {"spine2", CLASS_SPINE, false}, {"spine3", CLASS_SPINE, false}, {"chest", CLASS_SPINE, false},
    {"upperchest", CLASS_SPINE, false}, {"lowerback", CLASS_SPINE, false}, {"torso", CLASS_SPINE, false},
    {"neck", B(NECK), false}, {"neck0", B(NECK), false}, {"neck1", B(NECK), false}, {"head", B(HEAD), false},
    {"shoulder", B(LEFT_SHOULDER), true}, {"clavicle", B(LEFT_SHOULDER), true}, {"collar", B(LEFT_SHOULDER), true},
    {"collarbone", B(LEFT_SHOULDER), true},
    {"arm", B(LEFT_UPPER_ARM), true}, {"upperarm", B(LEFT_UPPER_ARM), true}, {"uparm", B(LEFT_UPPER_ARM), true},
    {"forearm", B(LEFT_LOWER_ARM), true}, {"lowerarm", B(LEFT_LOWER_ARM), true}, {"elbow", B(LEFT_LOWER_ARM), true},
    {"hand", B(LEFT_HAND), true}, {"wrist", B(LEFT_HAND), true},
    {"upleg", B(LEFT_UPPER_LEG), true}, {"upperleg", B(LEFT_UPPER_LEG), true}, {"thigh", B(LEFT_UPPER_LEG), true},
    {"leg", B(LEFT_LOWER_LEG), true}, {"lowerleg", B(LEFT_LOWER_LEG), true}, {"calf", B(LEFT_LOWER_LEG), true},
    {"shin", B(LEFT_LOWER_LEG), true}, {"knee", B(LEFT_LOWER_LEG), true},
    {"foot", B(LEFT_FOOT), true}, {"ankle", B(LEFT_FOOT), true},
    {"toebase", B(LEFT_TOES), true}, {"toe", B(LEFT_TOES), true}, {"toes", B(LEFT_TOES), true},
    {"toe0", B(LEFT_TOES), true}, {"ball", B(LEFT_TOES), true},
};

static const char *const FINGERS[5][2] = {
    {"thumb", NULL}, {"index", NULL}, {"middle", "mid"}, {"ring", NULL}, {"pinky", "little"}};

static const char *const PREFIXES[] = {"bip001", "bip01", "ccbase", "def", "org", "valvebiped", "bip"};

static int lower(int c) {
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool is_separator(int c) {
    return c == ' ' || c == '_' || c == '-' || c == '.' || c == ':' || c == '|';
}

static bool is_side_token(const char *t, size_t n, int *side) {
    char s[8];
    if (n == 0 || n >= sizeof s) return false;
    for (size_t i = 0; i < n; i++) s[i] = (char)lower((unsigned char)t[i]);
    s[n] = '\0';
    if (!strcmp(s, "l") || !strcmp(s, "left")) *side = SIDE_LEFT;
    else if (!strcmp(s, "r") || !strcmp(s, "right")) *side = SIDE_RIGHT;
    else return false;
    return true;
}

/* Finger word ("thumb2", "handindex1", "indexfinger3", "pinky1") -> the left finger bone. */
static int finger_bone(const char *w) {
    if (!strncmp(w, "hand", 4)) w += 4;
    for (int f = 0; f < 5; f++) {
        for (int k = 0; k < 2; k++) {
            const char *name = FINGERS[f][k];
            size_t n = name ? strlen(name) : 0;
            if (!name || strncmp(w, name, n)) continue;
            const char *rest = w + n;
            if (!strncmp(rest, "finger", 6)) rest += 6;
            if (rest[0] == '0' && rest[1]) rest++;
            int segment = rest[0] == '\0' ? 1 : (rest[1] == '\0' && rest[0] >= '1' && rest[0] <= '3' ? rest[0] - '0' : 0);
            if (segment) return B(LEFT_THUMB_1) + f * 3 + segment - 1;
        }
    }
    return CLASS_NONE;
}

/* The class of a compact word: a profile bone (left for sided), CLASS_SPINE, or CLASS_NONE;
 * *sided says whether it needs a side. */
static int word_class(const char *w, bool *sided) {
    for (size_t i = 0; i < sizeof SYNONYMS / sizeof SYNONYMS[0]; i++) {
        if (!strcmp(w, SYNONYMS[i].word)) {
            *sided = SYNONYMS[i].sided;
            return SYNONYMS[i].bone;
        }
    }
    *sided = true;
    return finger_bone(w);
}

typedef struct token {
    const char *start;
    size_t length;
} token;

static size_t split_tokens(const char *name, token *tokens, size_t capacity) {
    const char *s = name;
    for (const char *p = name; *p; p++) {
        if (*p == ':' || *p == '|') s = p + 1; /* namespaces: "mixamorig:", "Armature|" */
    }
    size_t n = 0;
    while (*s && n < capacity) {
        while (*s && is_separator((unsigned char)*s)) s++;
        if (!*s) break;
        tokens[n].start = s;
        while (*s && !is_separator((unsigned char)*s)) s++;
        tokens[n].length = (size_t)(s - tokens[n].start);
        n++;
    }
    return n;
}

/* Lower-case concatenation of tokens[first, end) into word (WORD_MAX bytes); false if too long. */
static bool join_tokens(const token *tokens, size_t first, size_t end, char *word) {
    size_t n = 0;
    for (size_t t = first; t < end; t++) {
        for (size_t i = 0; i < tokens[t].length; i++) {
            if (n + 1 >= WORD_MAX) return false;
            word[n++] = (char)lower((unsigned char)tokens[t].start[i]);
        }
    }
    word[n] = '\0';
    return true;
}

static bool is_prefix(const char *word) {
    for (size_t i = 0; i < sizeof PREFIXES / sizeof PREFIXES[0]; i++) {
        if (!strcmp(word, PREFIXES[i])) return true;
    }
    return false;
}

/* Drops prefix tokens and side tokens: [*first, *end) are what is left. */
static void strip_tokens(const token *tokens, size_t *first, size_t *end, int *side) {
    char word[WORD_MAX];
    if (*end - *first > 2 && join_tokens(tokens, *first, *first + 2, word) && !strcmp(word, "ccbase")) *first += 2;
    if (*end - *first > 1 && join_tokens(tokens, *first, *first + 1, word) && is_prefix(word)) *first += 1;
    if (*end - *first > 1 && is_side_token(tokens[*first].start, tokens[*first].length, side)) *first += 1;
    if (*end - *first > 1 && is_side_token(tokens[*end - 1].start, tokens[*end - 1].length, side)) *end -= 1;
}

/* Reads a side written inside the word ("leftupleg", "legright", CMU's "lthumb"). */
static void strip_word_side(char *word, int *side) {
    bool sided;
    size_t n = strlen(word);
    if (!strncmp(word, "left", 4) && n > 4) *side = SIDE_LEFT, memmove(word, word + 4, n - 3);
    else if (!strncmp(word, "right", 5) && n > 5) *side = SIDE_RIGHT, memmove(word, word + 5, n - 4);
    else if (n > 4 && !strcmp(word + n - 4, "left")) *side = SIDE_LEFT, word[n - 4] = '\0';
    else if (n > 5 && !strcmp(word + n - 5, "right")) *side = SIDE_RIGHT, word[n - 5] = '\0';
    else if ((word[0] == 'l' || word[0] == 'r') && word_class(word, &sided) == CLASS_NONE &&
             word_class(word + 1, &sided) != CLASS_NONE && sided) {
        *side = word[0] == 'l' ? SIDE_LEFT : SIDE_RIGHT;
        memmove(word, word + 1, n);
    }
}

/* The profile bone a joint name stands for, CLASS_SPINE for a spine-chain name, or CLASS_NONE. */
static int classify_name(const char *name) {
    token tokens[16];
    size_t end = split_tokens(name, tokens, 16), first = 0;
    int side = SIDE_NONE;
    char word[WORD_MAX];
    if (end == 0) return CLASS_NONE;
    strip_tokens(tokens, &first, &end, &side);
    if (!join_tokens(tokens, first, end, word)) return CLASS_NONE;
    if (side == SIDE_NONE) strip_word_side(word, &side);
    bool sided;
    int cls = word_class(word, &sided);
    if (cls < 0 || !sided) return cls;
    if (side == SIDE_NONE) return CLASS_NONE;
    return side == SIDE_LEFT ? cls : cls + (cls >= B(LEFT_THUMB_1) ? 15 : 4);
}

static uint32_t joint_depth(const ossa_skeleton *skeleton, uint32_t joint) {
    uint32_t depth = 0;
    for (int32_t j = skeleton->parents[joint]; j >= 0 && depth <= skeleton->joint_count; j = skeleton->parents[j]) depth++;
    return depth;
}

static bool is_below(const ossa_skeleton *skeleton, int32_t joint, int32_t ancestor) {
    for (int32_t j = skeleton->parents[joint]; j >= 0; j = skeleton->parents[j]) {
        if (j == ancestor) return true;
    }
    return false;
}

/* Each named bone: the shallowest joint whose name stands for it (the first on ties). */
static void map_by_name(const ossa_skeleton *skeleton, ossa_retarget_map *map) {
    uint32_t best_depth[OSSA_HUMANOID_BONE_COUNT];
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        int cls = classify_name(skeleton->names[j]);
        if (cls < 0) continue;
        uint32_t depth = joint_depth(skeleton, j);
        if (map->joints[cls] < 0 || depth < best_depth[cls]) {
            map->joints[cls] = (int32_t)j;
            best_depth[cls] = depth;
        }
    }
}

static bool joint_is_mapped(const ossa_retarget_map *map, int32_t joint) {
    for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        if (map->joints[b] == joint) return true;
    }
    return false;
}

/* Spine, chest and upper chest along the joints between the hips and the neck (or head). */
static void map_spine(const ossa_skeleton *skeleton, ossa_retarget_map *map) {
    int32_t hips = map->joints[B(HIPS)];
    int32_t top = map->joints[B(NECK)] >= 0 ? map->joints[B(NECK)] : map->joints[B(HEAD)];
    if (hips < 0 || top < 0 || !is_below(skeleton, top, hips)) return;
    int32_t path[OSSA_HUMANOID_BONE_COUNT * 4];
    int32_t n = 0, cap = (int32_t)(sizeof path / sizeof path[0]);
    for (int32_t j = skeleton->parents[top]; j != hips && n < cap; j = skeleton->parents[j]) path[n++] = j;
    if (n == 0 || n == cap) return;
    /* path runs top-down: path[n - 1] is just above the hips. The arms hang from the upper
     * chest: when they leave the path below its top, the chain ends there. */
    int32_t arm = map->joints[B(LEFT_SHOULDER)] >= 0 ? map->joints[B(LEFT_SHOULDER)] : map->joints[B(LEFT_UPPER_ARM)];
    for (int32_t k = 0; arm >= 0 && k < n; k++) {
        if (is_below(skeleton, arm, path[k])) {
            memmove(path, path + k, (size_t)(n - k) * sizeof path[0]);
            n -= k;
            break;
        }
    }
    int32_t spine = path[n - 1], upper = path[0], chest = path[n - 1 - (n - 1) / 2];
    if (!joint_is_mapped(map, spine)) map->joints[B(SPINE)] = spine;
    if (n >= 2 && !joint_is_mapped(map, upper)) map->joints[n >= 3 ? B(UPPER_CHEST) : B(CHEST)] = upper;
    if (n >= 3 && !joint_is_mapped(map, chest)) map->joints[B(CHEST)] = chest;
}

/* Drops every bone whose joint is not below the joint of its nearest mapped profile ancestor
 * (profile order: parents before children). */
static void drop_out_of_order(const ossa_skeleton *skeleton, ossa_retarget_map *map) {
    for (int b = 1; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        if (map->joints[b] < 0) continue;
        int32_t a = ossa_humanoid_bone_parent((ossa_humanoid_bone)b);
        while (a >= 0 && map->joints[a] < 0) a = ossa_humanoid_bone_parent((ossa_humanoid_bone)a);
        if (a >= 0 && !is_below(skeleton, map->joints[b], map->joints[a])) map->joints[b] = -1;
    }
}

ossa_result ossa_retarget_map_auto(const ossa_skeleton *skeleton, ossa_retarget_map *out, ossa_diagnostic *diag) {
    if (!out) {
        if (diag) snprintf(diag->path, sizeof diag->path, "out"), snprintf(diag->message, sizeof diag->message, "out: is NULL");
        return OSSA_ERROR_INVALID_ARGUMENT;
    }
    ossa_retarget_map_clear(out);
    if (!skeleton) return ossa_retarget_map_validate(out, skeleton, diag);
    map_by_name(skeleton, out);
    map_spine(skeleton, out);
    drop_out_of_order(skeleton, out);
    return ossa_retarget_map_validate(out, skeleton, diag);
}
