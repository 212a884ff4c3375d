/* ossa/ossa.h: umbrella header, in data-flow order:
 * import (gltf.h, pack.h → asset.h) → runtime data (track.h, clip.h, skeleton.h, mesh.h) →
 * build (built_clip.h) → sample (sample.h, clip.h, player.h) → pose (pose.h) → IK (ik.h) → skin (skin.h).
 * Libraries (each header's opening says which provides its functions): ossa, the runtime
 * (everything a game shipping .ossa files calls); ossa_offline (clip builder, bakers, asset
 * builder, .ossa writer, format.h); ossa_gltf (gltf.h, graph_json.h). Not included here: import.h
 * (ossa_import), assimp.h (ossa_assimp), gl.h (ossa_gl). */
#ifndef OSSA_OSSA_H
#define OSSA_OSSA_H

#include "common.h"
#include "math.h"
#include "track.h"
#include "clip.h"
#include "built_clip.h"
#include "sample.h"
#include "pose.h"
#include "ik.h"
#include "blend.h"
#include "inertialize.h"
#include "root_motion.h"
#include "events.h"
#include "skeleton.h"
#include "mesh.h"
#include "skin.h"
#include "player.h"
#include "graph.h"
#include "asset.h"
#include "gltf.h"
#include "graph_json.h"
#include "format.h"
#include "pack.h"

#endif
