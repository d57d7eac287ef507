// aclDataTypeSize and CANN's saturating FP16 helpers.
#include <cmath>

#include "acl/acl_base.h"
#include "common/caller_enum.h"
#include "common/float_convert.h"

extern "C" {

size_t aclDataTypeSize(aclDataType dataType) {
  switch (aclhost::CallerInt(dataType)) {
    case ACL_DT_UNDEFINED:
    case ACL_STRING: return 0;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0: return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16: return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32: return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 8;  // the runtime's table falls through to 8 for the rest
  }
}

float aclFloat16ToFloat(aclFloat16 value) {
  const bool negative = (value & 0x8000u) != 0;
  if ((value & 0x7FFFu) == 0x7C00u) return negative ? -65536.0f : 65536.0f;
  if ((value & 0x7C00u) == 0x7C00u) return 98304.0f;
  return aclhost::HalfToFloat(value);
}

aclFloat16 aclFloatToFloat16(float value) {
  if (std::isnan(value)) return 0x7BFFu;
  const aclFloat16 half = aclhost::FloatToHalf(value);
  if ((half & 0x7FFFu) == 0x7C00u) return (half & 0x8000u) ? 0xFBFFu : 0x7BFFu;  // saturate, Inf included
  return half;
}

}  // extern "C"
