/* The seed's two slow CPU skinning variants, kept as reference paths for the tests (not
 * part of the library): per influence, build the skin matrix (two arrays) or skin
 * transform (TRS combine), transform the vertex, and sum the weighted results. */
#ifndef OSSA_TEST_SKIN_REFERENCE_H
#define OSSA_TEST_SKIN_REFERENCE_H

#include <ossa/ossa.h>

/* Skins job->[begin, end) like LBS, the skin matrix of joint j being model[j] *
 * inverse_bind[j] (model and inverse_bind have job->palette_count entries); job->palette,
 * dual_quats, method and kernel are not used. Validates the rest of the job like
 * ossa_skin_job_validate and checks joint indices first (INVALID_DATA, nothing written);
 * INVALID_ARGUMENT for NULL model / inverse_bind. */
ossa_result ot_skin_lbs_two_arrays(const ossa_skin_job *job, const ossa_mat4 *model, const ossa_mat4 *inverse_bind);
/* The same with the skin transform combine(model[j], inverse_bind[j]) as TRS (matches the
 * matrix paths for uniform scale): the seed's transform variant. */
ossa_result ot_skin_lbs_transforms(const ossa_skin_job *job, const ossa_transform *model,
                                   const ossa_transform *inverse_bind);

#endif
