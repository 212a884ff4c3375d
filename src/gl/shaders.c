/* GLSL 330 core sources for ossa_gl. The renderer prepends "#version 330 core" and
 * the variant defines (see gl_internal.h). Math matches the CPU kernels (skin.h):
 * morphs p = base + Σ wₜ δₜ (normals likewise, not renormalised) first, then
 * LBS p' = (Σ wᵢ Mᵢ) p, n' = normalize(Σ wᵢ Mᵢ[3x3] n); DQS blends with the sign of
 * each real part flipped into the first influence's hemisphere; a vertex whose
 * weights sum to 0 keeps its bind position and normal. */
#include "gl_internal.h"

/* The skinning vertex shader's inputs, outputs and helpers (per variant, OSSA_SKIN). */
const char ossa__gl_skin_vs[] =
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 1) in vec3 a_normal;\n"
    "layout(location = 2) in uvec4 a_joints0;\n"
    "layout(location = 3) in vec4 a_weights0;\n"
    "layout(location = 4) in uvec4 a_joints1;\n"
    "layout(location = 5) in vec4 a_weights1;\n"
    "layout(location = 6) in vec4 a_color;\n" /* COLOR_0, generic (1,1,1,1) when absent */
    "layout(location = 7) in vec2 a_uv0;\n"
    "layout(location = 8) in vec2 a_uv1;\n"
    "uniform mat4 u_view_proj;\n"
    "uniform int u_texcoord;\n"
    "uniform sampler2D u_morph_tex;\n" /* see OSSA__GL_MORPH_ROW_TEXELS */
    "uniform int u_morph_count;\n"
    "uniform int u_morph_vertex_count;\n"
    "uniform ivec4 u_morph_targets[OSSA_MAX_MORPHS / 4];\n"
    "uniform vec4 u_morph_weights[OSSA_MAX_MORPHS / 4];\n"
    "out vec3 v_position;\n" /* skinned model-space position (transform feedback) */
    "out vec3 v_normal;\n"
    "out vec4 v_color;\n"
    "out vec2 v_uv;\n"
    "\n"
    "#if OSSA_SKIN == 1\n"
    "uniform mat4 u_model[OSSA_MAX_JOINTS];\n"
    "uniform mat4 u_inverse_bind[OSSA_MAX_JOINTS];\n"
    "mat4 joint_matrix(uint j) { return u_model[j] * u_inverse_bind[j]; }\n"
    "#elif OSSA_SKIN == 2\n"
    "uniform mat4 u_palette[OSSA_MAX_JOINTS];\n"
    "mat4 joint_matrix(uint j) { return u_palette[j]; }\n"
    "#elif OSSA_SKIN == 3\n"
    "uniform sampler2D u_palette_tex;\n" /* 4 RGBA32F texels (columns) per joint */
    "mat4 joint_matrix(uint j) {\n"
    "    int t = int(j) * 4;\n"
    "    ivec2 c = ivec2(t % OSSA_ROW_TEXELS, t / OSSA_ROW_TEXELS);\n"
    "    return mat4(texelFetch(u_palette_tex, c, 0), texelFetch(u_palette_tex, c + ivec2(1, 0), 0),\n"
    "                texelFetch(u_palette_tex, c + ivec2(2, 0), 0), texelFetch(u_palette_tex, c + ivec2(3, 0), 0));\n"
    "}\n"
    "#elif OSSA_SKIN == 4\n"
    "uniform vec4 u_dual_quats[2 * OSSA_MAX_JOINTS];\n" /* real, dual per joint */
    "#elif OSSA_SKIN == 5\n"
    "uniform sampler2D u_palette_tex;\n" /* crowd: every instance's palette, instance-major */
    "uniform int u_joint_count;\n"
    "uniform int u_instance_base;\n"
    "mat4 joint_matrix(uint j) {\n"
    "    int t = ((gl_InstanceID + u_instance_base) * u_joint_count + int(j)) * 4;\n"
    "    ivec2 c = ivec2(t % OSSA_ROW_TEXELS, t / OSSA_ROW_TEXELS);\n"
    "    return mat4(texelFetch(u_palette_tex, c, 0), texelFetch(u_palette_tex, c + ivec2(1, 0), 0),\n"
    "                texelFetch(u_palette_tex, c + ivec2(2, 0), 0), texelFetch(u_palette_tex, c + ivec2(3, 0), 0));\n"
    "}\n"
    "#endif\n"
    "\n"
    "vec3 safe_normalize(vec3 v) { float l = length(v); return l > 1e-12 ? v / l : v; }\n"
    "\n"
    "#if OSSA_SKIN == 1 || OSSA_SKIN == 2 || OSSA_SKIN == 3 || OSSA_SKIN == 5\n"
    "void add_influence(inout mat4 acc, uint j, float w) { if (w != 0.0) acc += w * joint_matrix(j); }\n"
    "#elif OSSA_SKIN == 4\n"
    "void add_influence(inout vec4 br, inout vec4 bd, vec4 r0, uint j, float w) {\n"
    "    if (w == 0.0) return;\n"
    "    vec4 r = u_dual_quats[2u * j], d = u_dual_quats[2u * j + 1u];\n"
    "    if (dot(r, r0) < 0.0) w = -w;\n"
    "    br += w * r;\n"
    "    bd += w * d;\n"
    "}\n"
    "vec3 quat_rotate(vec4 q, vec3 v) { return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }\n"
    "#endif\n";

/* Its main(), a second literal: ISO C guarantees string literals of 4095 characters only. */
const char ossa__gl_skin_vs_main[] =
    "\n"
    "void main() {\n"
    "    vec3 p = a_position, n = a_normal;\n"
    "    for (int i = 0; i < u_morph_count; i++) {\n"
    "        int texel = (u_morph_targets[i / 4][i % 4] * u_morph_vertex_count + gl_VertexID) * 2;\n"
    "        float w = u_morph_weights[i / 4][i % 4];\n"
    "        ivec2 c = ivec2(texel % OSSA_MORPH_ROW_TEXELS, texel / OSSA_MORPH_ROW_TEXELS);\n"
    "        p += w * texelFetch(u_morph_tex, c, 0).xyz;\n"
    "        n += w * texelFetch(u_morph_tex, c + ivec2(1, 0), 0).xyz;\n"
    "    }\n"
    "#if OSSA_SKIN != 0\n"
    "    float wsum = dot(a_weights0, vec4(1.0)) + dot(a_weights1, vec4(1.0));\n"
    "    if (wsum != 0.0) {\n"
    "#if OSSA_SKIN == 4\n"
    "        vec4 r0 = u_dual_quats[2u * a_joints0.x];\n"
    "        vec4 br = vec4(0.0), bd = vec4(0.0);\n"
    "        add_influence(br, bd, r0, a_joints0.x, a_weights0.x);\n"
    "        add_influence(br, bd, r0, a_joints0.y, a_weights0.y);\n"
    "        add_influence(br, bd, r0, a_joints0.z, a_weights0.z);\n"
    "        add_influence(br, bd, r0, a_joints0.w, a_weights0.w);\n"
    "        add_influence(br, bd, r0, a_joints1.x, a_weights1.x);\n"
    "        add_influence(br, bd, r0, a_joints1.y, a_weights1.y);\n"
    "        add_influence(br, bd, r0, a_joints1.z, a_weights1.z);\n"
    "        add_influence(br, bd, r0, a_joints1.w, a_weights1.w);\n"
    "        float len = length(br);\n"
    "        if (len > 1e-12) {\n" /* influences cancelling out: keep the bind vertex */
    "            br /= len;\n"
    "            bd /= len;\n"
    "            vec3 t = 2.0 * (br.w * bd.xyz - bd.w * br.xyz + cross(br.xyz, bd.xyz));\n"
    "            p = quat_rotate(br, p) + t;\n"
    "            n = safe_normalize(quat_rotate(br, n));\n"
    "        }\n"
    "#else\n"
    "        mat4 m = mat4(0.0);\n"
    "        add_influence(m, a_joints0.x, a_weights0.x);\n"
    "        add_influence(m, a_joints0.y, a_weights0.y);\n"
    "        add_influence(m, a_joints0.z, a_weights0.z);\n"
    "        add_influence(m, a_joints0.w, a_weights0.w);\n"
    "        add_influence(m, a_joints1.x, a_weights1.x);\n"
    "        add_influence(m, a_joints1.y, a_weights1.y);\n"
    "        add_influence(m, a_joints1.z, a_weights1.z);\n"
    "        add_influence(m, a_joints1.w, a_weights1.w);\n"
    "        p = (m * vec4(p, 1.0)).xyz;\n"
    "        n = safe_normalize(mat3(m) * n);\n"
    "#endif\n"
    "    }\n"
    "#endif\n"
    "    v_position = p;\n"
    "    v_normal = n;\n"
    "    v_color = a_color;\n"
    "    v_uv = u_texcoord == 1 ? a_uv1 : a_uv0;\n"
    "    gl_Position = u_view_proj * vec4(p, 1.0);\n"
    "}\n";

/* Linear-space shading: base = factor x vertex colour x sRGB texture; a hemisphere
 * ambient (cool sky, warm ground) so unlit sides keep their form on a dark background,
 * a Lambert key light, a soft Blinn-Phong highlight, then gamma 1/2.2. Normals flip
 * to the viewer on back faces; a mesh without normals (u_flat) uses the triangle's
 * plane from screen-space derivatives of the skinned position, which already faces
 * the viewer. */
const char ossa__gl_lit_fs[] =
    "#version 330 core\n"
    "in vec3 v_position;\n"
    "in vec3 v_normal;\n"
    "in vec4 v_color;\n"
    "in vec2 v_uv;\n"
    "uniform vec4 u_color;\n"
    "uniform vec3 u_light_dir;\n" /* unit vector the light travels along */
    "uniform vec3 u_eye;\n"
    "uniform int u_has_eye;\n"
    "uniform int u_flat;\n"
    "uniform int u_has_texture;\n"
    "uniform sampler2D u_base_tex;\n"
    "uniform int u_alpha_mode;\n" /* 0 opaque, 1 mask, 2 blend */
    "uniform float u_alpha_cutoff;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "    vec4 base = u_color * v_color;\n"
    "    if (u_has_texture != 0) base *= texture(u_base_tex, v_uv);\n"
    "    if (u_alpha_mode == 1 && base.a < u_alpha_cutoff) discard;\n"
    "    vec3 n;\n"
    "    if (u_flat != 0) {\n"
    "        n = cross(dFdx(v_position), dFdy(v_position));\n"
    "        float fl = length(n);\n"
    "        n = fl > 0.0 ? n / fl : vec3(0.0, 0.0, 1.0);\n"
    "    } else {\n"
    "        n = v_normal;\n"
    "        float l = length(n);\n"
    "        n = l > 0.0 ? n / l : vec3(0.0, 0.0, 1.0);\n"
    "        if (!gl_FrontFacing) n = -n;\n"
    "    }\n"
    "    vec3 to_light = -u_light_dir;\n"
    "    float diffuse = max(dot(n, to_light), 0.0);\n"
    "    vec3 ambient = mix(vec3(0.16, 0.15, 0.14), vec3(0.24, 0.26, 0.30), 0.5 + 0.5 * n.y);\n"
    "    float spec = 0.0;\n"
    "    if (u_has_eye != 0 && diffuse > 0.0) {\n"
    "        vec3 h = normalize(to_light + normalize(u_eye - v_position));\n"
    "        spec = 0.12 * pow(max(dot(n, h), 0.0), 24.0);\n"
    "    }\n"
    "    vec3 lit = base.rgb * (ambient + 0.85 * diffuse) + vec3(spec);\n"
    "    o_color = vec4(pow(clamp(lit, 0.0, 1.0), vec3(1.0 / 2.2)), u_alpha_mode == 2 ? base.a : 1.0);\n"
    "}\n";

const char ossa__gl_lines_vs[] =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_position;\n"
    "uniform mat4 u_view_proj;\n"
    "void main() { gl_Position = u_view_proj * vec4(a_position, 1.0); }\n";

const char ossa__gl_lines_fs[] =
    "#version 330 core\n"
    "uniform vec4 u_color;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = u_color; }\n";
