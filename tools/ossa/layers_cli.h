/* Layered poses for `ossa sample` and `ossa render` (docs/layers.md):
 *   --clip A --clip B [--weights 0.3,0.7] [--sync]   override layers blended by weight
 *   --additive CLIP[:WEIGHT]                         an additive layer (delta against its first frame;
 *                                                    a ':' not followed by a number belongs to the name)
 *   --mask JOINT                                     the layer given just before covers JOINT's subtree only
 *   --root-motion                                    extract each override clip's root motion
 * Inside a masked override layer's subtree, the override layers given before it are replaced
 * (their joint weights are zeroed there), so `--clip Walk --clip Wave --mask Spine` is a walk
 * with a waving upper body. The pose comes from the blend job (ossa/blend.h).
 * A packed .ossa file has built clips only: override layers (weights, masks, --sync) sample
 * them; --additive and --root-motion derive new clips from editable ones and are refused
 * there with a message saying so.
 * With build options (`ossa sample --precision P | --lossless`, and `ossa render` always), every
 * layer samples a built clip: the asset's built clip when it has one for that clip, else the
 * layer's clip (editable or root-motion-stripped) built here with those options; root motion
 * itself stays on the editable path (it is extracted from the source clip). An additive layer
 * builds its SOURCE clip and makes each built sample the delta against the source's first frame
 * (what ossa_clip_make_additive does to the keys, so lossless stays exact): a built delta clip
 * would be measured as a pose of deltas, whose joints sit at the origin, so its rotation errors
 * would be weighed by the shell distance alone, not by the distance to the children they move. */
#ifndef OSSA_TOOL_LAYERS_CLI_H
#define OSSA_TOOL_LAYERS_CLI_H

#include <ossa/ossa.h>

#include "cli_common.h"

typedef struct cli_layer {
    const char *clip_arg;      /* as given */
    size_t name_length;        /* of the clip name in clip_arg (0 = all of it; --additive CLIP:WEIGHT) */
    int32_t index;             /* clip index in the asset */
    bool additive;
    float weight;
    const char *mask;          /* joint name or NULL */
    const ossa_clip *clip;     /* what is sampled: the asset's clip, or an owned derived one */
    const ossa_built_clip *built; /* or, for a packed file (built clips only), its built clip */
    cli_built_sampler sampler; /* samples `built` */
    ossa_clip *owned;          /* additive delta or root-motion-stripped clip */
    ossa_built_clip *owned_built; /* `clip` built here (build options given, no asset built clip) */
    ossa_transform *additive_reference; /* additive layer with build options: the source clip's first
                                         * frame; its built samples are made deltas against it */
    ossa_root_motion *motion;  /* with --root-motion (override layers) */
    float *joint_weights;      /* joint_count: weight x mask, with later masks' overrides applied */
    ossa_transform *pose;      /* joint_count */
    float time;                /* resolved time of the last pose */
} cli_layer;

typedef struct cli_layers {
    cli_layer *items;
    int count;
    const char *weights_arg;
    bool sync, root_motion, flags; /* flags: a layer flag other than one --clip was given */
    ossa_transform root;           /* the character transform of the last pose (root motion); its
                                      rotation keeps the previous pose's sign (dot >= 0) */
    bool has_root;                 /* root was set by an earlier pose */
    ossa_blend_layer *over, *add;
    uint32_t joint_count;
} cli_layers;

/* Parses argv[*i] when it is a layer flag (advancing *i past its value): 1 taken, 0 not a
 * layer flag, -1 error (printed). */
int cli_layers_arg(cli_layers *L, const char *cmd, int argc, char **argv, int *i);
/* The first --clip given, or NULL. */
const char *cli_layers_first_clip(const cli_layers *L);
/* True when more than one clip or any other layer flag was given. */
bool cli_layers_active(const cli_layers *L);
/* Finds the clips (editable ones, or the built ones of a file that has no editable clips),
 * makes additive / stripped clips, masks and weights; with `build` (NULL = sample the editable
 * clips) samples every layer through a built clip (see above; --max-build-scratch and progress
 * as cli_build_clip). false (printed) on error. */
bool cli_layers_resolve(cli_layers *L, const ossa_asset *asset, const ossa_clip_build_options *build,
                        const char *cmd);
/* With --sync, the shared cycle in seconds: the override layers' durations averaged by their
 * weights (ossa_sync_duration); 0 without --sync or before cli_layers_resolve. */
float cli_layers_sync_cycle(const cli_layers *L);
/* The blended local pose at time t (root joints carry the root-motion transform when
 * --root-motion is on); sets each layer's resolved time and L->root. */
void cli_layers_pose(cli_layers *L, const ossa_skeleton *skeleton, float t, bool loop, ossa_transform *out);
/* Prints `"layers": [...]` (each layer's clip, index, mode, weight, mask, resolved time). */
void cli_layers_print_json(const cli_layers *L);
void cli_layers_free(cli_layers *L);

#endif
