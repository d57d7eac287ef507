/*
 * aclnn-host: LayerNorm forward (CANN layout, aclnnop/aclnn_layer_norm.h).
 * Works with either <prefix>/include or <prefix>/include/aclnnop on the include path.
 */
#ifndef OP_API_INC_LAYER_NORM_H_
#define OP_API_INC_LAYER_NORM_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Phase 1: validates every argument (see README for the order and codes), plans the work and
 * returns the workspace size and a single-use executor. Touches no tensor data. meanOutOptional
 * and rstdOutOptional receive exactly what aclnnLayerNormBackward takes as mean and rstd.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormGetWorkspaceSize(
    const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional,
    const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
    aclTensor *rstdOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: enqueues the planned work on stream (NULL = default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize,
                                               aclOpExecutor *executor, aclrtStream stream);

/*
 * As aclnnLayerNormGetWorkspaceSize, with implMode 0 (high precision), 1 (high performance) or
 * 2 (keep FLOAT16: input, weight and bias must then be FLOAT16). Every mode computes the same,
 * most precise, results here.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(
    const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional,
    const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
    aclTensor *rstdOutOptional, int32_t implMode, uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2 of the ImplMode variant (interchangeable with aclnnLayerNorm). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormWithImplMode(void *workspace, uint64_t workspaceSize,
                                                           aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LAYER_NORM_H_ */
