/* aclnn-host: umbrella of the ops-nn operator headers this project provides. */
#ifndef OP_API_INC_ACLNN_OPS_NN_H_
#define OP_API_INC_ACLNN_OPS_NN_H_

#include "aclnn_layer_norm.h"
#include "aclnn_layer_norm_backward.h"

#endif /* OP_API_INC_ACLNN_OPS_NN_H_ */
