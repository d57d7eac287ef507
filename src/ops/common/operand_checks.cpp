#include "ops/common/operand_checks.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "acl/acl_base.h"
#include "aclnn/opdev/op_errno.h"
#include "runtime/error_log.h"
#include "tensor/tensor.h"
#include "tensor/view_overlap.h"

namespace aclhost {
namespace {

// Each operand's ByteSpan, taken once for all the pairs it is compared in (absent operands: empty).
class Spans {
 public:
  explicit Spans(const NamedTensors &operands) {
    for (size_t k = 0; k < operands.size(); ++k) {
      if (operands[k].tensor != nullptr) spans_[k] = ViewByteSpan(operands[k].tensor->view);
    }
  }
  const ByteSpan &operator[](size_t k) const { return spans_[k]; }

 private:
  ByteSpan spans_[NamedTensors::kCapacity];
};

// Output k of outputs, against the outputs before it and every input.
aclnnStatus CheckOneOutput(const char *api, const NamedTensors &outputs, const Spans &output_spans, size_t k,
                           const NamedTensors &inputs, const Spans &input_spans, bool in_place_allowed) {
  const NamedTensor &output = outputs[k];
  const TensorView &view = output.tensor->view;
  const ViewOverlap self = CompareViewWithItself(view);
  if (self != ViewOverlap::kDisjoint) {
    return InvalidParameter(api,
                            "%s reaches %s memory through more than one element (strides %s); expected an output "
                            "view whose elements are distinct",
                            output.name, self == ViewOverlap::kUnknown ? "possibly the same" : "the same",
                            DimsToString(view.strides).c_str());
  }
  auto check_pair = [&](const NamedTensor &other, const ByteSpan &other_span, bool identical_allowed) {
    const ViewOverlap overlap = CompareViewMemory(view, output_spans[k], other.tensor->view, other_span);
    if (overlap == ViewOverlap::kDisjoint || (overlap == ViewOverlap::kIdentical && identical_allowed)) {
      return ACLNN_SUCCESS;
    }
    return InvalidParameter(api, "%s %s memory with %s; expected separate memory (in-place use needs exactly the same view)",
                            output.name, overlap == ViewOverlap::kUnknown ? "cannot be proven not to share" : "shares",
                            other.name);
  };
  for (size_t earlier = 0; earlier < k; ++earlier) {
    const aclnnStatus status = check_pair(outputs[earlier], output_spans[earlier], false);
    if (status != ACLNN_SUCCESS) return status;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NamedTensor &input = inputs[i];
    if (input.tensor == nullptr) continue;
    const aclnnStatus status = check_pair(input, input_spans[i], in_place_allowed && input.in_place_source);
    if (status != ACLNN_SUCCESS) return status;
  }
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus InvalidParameter(const char *api, const char *format, ...) {
  char text[900];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  ReportError(ErrorKind::kParameter, "%s: %s", api, text);
  return ACLNN_ERR_PARAM_INVALID;
}

aclnnStatus CheckAddress(const char *api, const char *name, const aclTensor *tensor) {
  if (tensor == nullptr || tensor->view.NumElements() == 0) return ACLNN_SUCCESS;
  if (tensor->view.data == nullptr) {
    ReportError(ErrorKind::kParameter, "%s: %s has %lld elements but a NULL data address; expected memory from aclrtMalloc",
                api, name, static_cast<long long>(tensor->view.NumElements()));
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  const size_t element_size = aclDataTypeSize(tensor->view.dtype);
  if (element_size == 0 || reinterpret_cast<uintptr_t>(tensor->view.data) % element_size == 0) return ACLNN_SUCCESS;
  return InvalidParameter(api,
                          "%s has data address %p, not aligned to its %zu-byte elements; expected an aligned address "
                          "such as aclrtMalloc returns",
                          name, tensor->view.data, element_size);
}

void NamedTensors::push_back(const NamedTensor &item) {
  if (count_ == kCapacity) {
    std::fprintf(stderr, "aclnn-host: more than %zu operands in one check list\n", kCapacity);
    std::abort();
  }
  items_[count_++] = item;
}

aclnnStatus CheckOutputMemory(const char *api, const NamedTensors &outputs, const NamedTensors &inputs,
                              const aclTensor *in_place_output) {
  const Spans output_spans(outputs), input_spans(inputs);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const aclnnStatus status = CheckOneOutput(api, outputs, output_spans, k, inputs, input_spans, outputs[k].tensor == in_place_output);
    if (status != ACLNN_SUCCESS) return status;
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclhost
