// Checks every operator's phase 1 makes on the tensors it touches, beyond its own table: data
// addresses, and memory shared between what it writes and anything else it touches.
#pragma once

#include <cstddef>
#include <initializer_list>

#include "aclnn/acl_meta.h"

namespace aclhost {

// Reports "api: <text>" as a parameter error and returns ACLNN_ERR_PARAM_INVALID.
aclnnStatus InvalidParameter(const char *api, const char *format, ...) __attribute__((format(printf, 2, 3)));

// A tensor the call reads or writes must have an address unless empty (161001), aligned to its
// element size (161002), as aclrtMalloc's always are, so that elements are whole values.
aclnnStatus CheckAddress(const char *api, const char *name, const aclTensor *tensor);

struct NamedTensor {
  const char *name;
  const aclTensor *tensor;  // NULL: absent, nothing to compare
  bool in_place_source;     // the in-place output may be exactly this input
};

// An operator's few operands of one kind, held in place: phase 1's checks make no heap allocation
// for their lists (a std::vector made two per call).
class NamedTensors {
 public:
  static constexpr size_t kCapacity = 8;  // more than any operator's inputs or outputs

  NamedTensors() = default;
  NamedTensors(std::initializer_list<NamedTensor> items) {
    for (const NamedTensor &item : items) push_back(item);
  }
  void push_back(const NamedTensor &item);  // aborts past kCapacity: a programming error

  const NamedTensor *begin() const { return items_; }
  const NamedTensor *end() const { return items_ + count_; }
  size_t size() const { return count_; }
  const NamedTensor &operator[](size_t k) const { return items_[k]; }

 private:
  NamedTensor items_[kCapacity] = {};
  size_t count_ = 0;
};

// For each output in order: its elements are distinct, it shares no memory with an earlier
// output, and none with an input, except that in_place_output may be exactly an input marked
// in_place_source (the operator reads each row before it writes it). 161002 otherwise.
aclnnStatus CheckOutputMemory(const char *api, const NamedTensors &outputs, const NamedTensors &inputs,
                              const aclTensor *in_place_output);

}  // namespace aclhost
