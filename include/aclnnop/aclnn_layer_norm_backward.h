/*
 * aclnn-host: LayerNorm backward (CANN layout, aclnnop/aclnn_layer_norm_backward.h).
 * Works with either <prefix>/include or <prefix>/include/aclnnop on the include path.
 */
#ifndef OP_API_INC_LAYER_NORM_BACKWARD_H_
#define OP_API_INC_LAYER_NORM_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Phase 1: validates every argument (see README for the order and codes), plans the work and
 * returns the workspace size and a single-use executor. Touches no tensor data.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/* Phase 2: enqueues the planned work on stream (NULL = default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LAYER_NORM_BACKWARD_H_ */
