/* aclnn-host: aclnn base header (CANN layout, aclnn/aclnn_base.h). */
#ifndef OP_API_INC_ACLNN_BASE_H_
#define OP_API_INC_ACLNN_BASE_H_

#include "acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Light-weight initialisation of the aclnn part only; configPath may be NULL. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ACLNN_BASE_H_ */
