/* aclnn-host: ACL umbrella header (CANN layout, acl/acl.h). */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
