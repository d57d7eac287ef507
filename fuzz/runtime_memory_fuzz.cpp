// The runtime's memory calls from raw bytes, against a model of what must happen: allocations,
// frees of live, freed and foreign pointers, synchronous and queued copies and memsets with any
// count, destMax and kind, streams and events created and destroyed twice, and re-initialisation.
// Every call must give the model's status, a failed call must leave a message and change no byte,
// and every byte must hold what the model says.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "byte_reader.h"

namespace {

using aclhost::fuzz::ByteReader;

void Require(bool condition, const char *what) {
  if (condition) return;
  std::fprintf(stderr, "runtime_memory_fuzz: %s\n", what);
  std::abort();
}

struct Block {
  void *memory;
  bool device;
  std::vector<unsigned char> expected;  // what the block must hold once its stream is synchronised
};

class Session {
 public:
  explicit Session(ByteReader &bytes) : bytes_(bytes) {}

  void Run() {
    Require(aclInit(nullptr) == ACL_SUCCESS, "aclInit failed");
    Require(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice failed");
    Require(aclrtCreateStream(&stream_) == ACL_SUCCESS, "aclrtCreateStream failed");
    for (int step = 0; step < 64 && !bytes_.Exhausted(); ++step) Step();
    Require(aclrtSynchronizeStream(stream_) == ACL_SUCCESS, "the final synchronisation failed");
    CheckContents();
    // Whatever is still allocated, and the stream, go with aclFinalize (a leak check sees it).
    Require(aclFinalize() == ACL_SUCCESS, "aclFinalize failed");
    for (const Block &block : blocks_) {
      Require(aclrtFree(block.memory) == ACL_ERROR_UNINITIALIZE, "aclrtFree after aclFinalize did not fail");
    }
    Require(aclGetRecentErrMsg() != nullptr || blocks_.empty(), "failed frees left no message");
  }

 private:
  size_t Size() { return bytes_.Bit() ? static_cast<size_t>(bytes_.Range(1, 64)) : static_cast<size_t>(bytes_.Range(1, 5000)); }

  Block *PickBlock() { return blocks_.empty() ? nullptr : &blocks_[static_cast<size_t>(bytes_.Range(0, 255)) % blocks_.size()]; }

  void ExpectFailure(aclError status, aclError expected, const char *what) {
    Require(status == expected, what);
    Require(aclGetRecentErrMsg() != nullptr, "a failed call left no message");
  }

  void CheckContents() {
    for (const Block &block : blocks_) {
      Require(std::memcmp(block.memory, block.expected.data(), block.expected.size()) == 0, "memory differs from the model");
    }
  }

  void Step() {
    switch (bytes_.Byte() % 10) {
      case 0: {  // allocate
        const size_t size = Size();
        const bool device = bytes_.Bit();
        void *memory = nullptr;
        const aclError status = device ? aclrtMalloc(&memory, size, ACL_MEM_MALLOC_HUGE_FIRST) : aclrtMallocHost(&memory, size);
        Require(status == ACL_SUCCESS && memory != nullptr, "an allocation failed");
        std::memset(memory, 0, size);
        blocks_.push_back({memory, device, std::vector<unsigned char>(size, 0)});
        break;
      }
      case 1: {  // free a live block, then the same pointer again
        if (blocks_.empty()) break;
        Require(aclrtSynchronizeStream(stream_) == ACL_SUCCESS, "synchronisation failed");
        CheckContents();
        const size_t index = static_cast<size_t>(bytes_.Range(0, 255)) % blocks_.size();
        Block block = blocks_[index];
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(index));
        Require((block.device ? aclrtFree(block.memory) : aclrtFreeHost(block.memory)) == ACL_SUCCESS, "a free failed");
        ExpectFailure(block.device ? aclrtFree(block.memory) : aclrtFreeHost(block.memory), ACL_ERROR_RT_PARAM_INVALID,
                      "a double free was not refused");
        break;
      }
      case 2: {  // free a pointer that was never returned
        Block *block = PickBlock();
        static int on_the_stack;
        void *foreign = block != nullptr && block->expected.size() > 1 ? static_cast<void *>(static_cast<char *>(block->memory) + 1)
                                                                        : static_cast<void *>(&on_the_stack);
        ExpectFailure(aclrtFree(foreign), ACL_ERROR_RT_PARAM_INVALID, "a foreign free was not refused");
        break;
      }
      case 3:
      case 4: Copy(bytes_.Bit()); break;
      case 5:
      case 6: Set(bytes_.Bit()); break;
      case 7: {  // a second stream, used, then destroyed twice
        aclrtStream extra = nullptr;
        Require(aclrtCreateStream(&extra) == ACL_SUCCESS, "aclrtCreateStream failed");
        Require(aclrtDestroyStream(extra) == ACL_SUCCESS, "aclrtDestroyStream failed");
        ExpectFailure(aclrtDestroyStream(extra), ACL_ERROR_RT_INVALID_HANDLE, "a second aclrtDestroyStream was not refused");
        ExpectFailure(aclrtSynchronizeStream(extra), ACL_ERROR_RT_INVALID_HANDLE, "a destroyed stream was synchronised");
        break;
      }
      case 8: {  // an event on the stream
        aclrtEvent event = nullptr;
        Require(aclrtCreateEvent(&event) == ACL_SUCCESS, "aclrtCreateEvent failed");
        Require(aclrtRecordEvent(event, stream_) == ACL_SUCCESS, "aclrtRecordEvent failed");
        Require(aclrtSynchronizeEvent(event) == ACL_SUCCESS, "aclrtSynchronizeEvent failed");
        Require(aclrtDestroyEvent(event) == ACL_SUCCESS, "aclrtDestroyEvent failed");
        ExpectFailure(aclrtDestroyEvent(event), ACL_ERROR_RT_INVALID_HANDLE, "a second aclrtDestroyEvent was not refused");
        break;
      }
      default:
        Require(aclrtSynchronizeStream(stream_) == ACL_SUCCESS, "synchronisation failed");
        CheckContents();
        break;
    }
  }

  // A copy between two blocks (possibly overlapping parts of one: aclrtMemcpy moves like
  // memmove), with a destMax and count that may be wrong and a kind that may be invalid.
  void Copy(bool queued) {
    Block *to = PickBlock();
    Block *from = PickBlock();
    if (to == nullptr) return;
    const size_t capacity = to->expected.size();
    const size_t dst_at = static_cast<size_t>(bytes_.Range(0, 255)) % capacity;
    const size_t dest_max = capacity - dst_at - static_cast<size_t>(bytes_.Range(0, 3)) % (capacity - dst_at);
    const size_t src_at = static_cast<size_t>(bytes_.Range(0, 255)) % from->expected.size();
    size_t count = static_cast<size_t>(bytes_.Range(0, 6000));
    // 6 and 7 are named kinds the runtime refuses (a C caller could pass any int; C++ cannot).
    const int kind_pick = static_cast<int>(bytes_.Range(0, 7));
    const bool fits = count <= dest_max;
    if (fits) count = std::min(count, from->expected.size() - src_at);  // the caller's own promise about src
    unsigned char *dst = static_cast<unsigned char *>(to->memory) + dst_at;
    const unsigned char *src = static_cast<const unsigned char *>(from->memory) + src_at;
    const aclrtMemcpyKind kind = static_cast<aclrtMemcpyKind>(kind_pick);
    const aclError status = queued ? aclrtMemcpyAsync(dst, dest_max, src, count, kind, stream_)
                                   : aclrtMemcpy(dst, dest_max, src, count, kind);
    if (count == 0) {
      Require(status == ACL_SUCCESS, "an empty copy failed");
      return;
    }
    if (kind_pick < ACL_MEMCPY_HOST_TO_HOST || kind_pick > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
      ExpectFailure(status, ACL_ERROR_INVALID_PARAM, "an invalid memcpy kind was accepted");
      return;
    }
    if (!fits) {
      ExpectFailure(status, ACL_ERROR_RT_PARAM_INVALID, "count > destMax was accepted");
      return;
    }
    Require(status == ACL_SUCCESS, "a valid copy failed");
    // The model applies a queued copy when the stream gets there: synchronise now.
    if (queued) Require(aclrtSynchronizeStream(stream_) == ACL_SUCCESS, "synchronisation failed");
    std::memmove(to->expected.data() + dst_at, from->expected.data() + src_at, count);
  }

  void Set(bool queued) {
    Block *to = PickBlock();
    if (to == nullptr) return;
    const size_t capacity = to->expected.size();
    const size_t at = static_cast<size_t>(bytes_.Range(0, 255)) % capacity;
    const size_t max_count = capacity - at;
    const size_t count = static_cast<size_t>(bytes_.Range(0, 6000));
    const int value = static_cast<int>(bytes_.Byte());
    unsigned char *dst = static_cast<unsigned char *>(to->memory) + at;
    const aclError status = queued ? aclrtMemsetAsync(dst, max_count, value, count, stream_)
                                   : aclrtMemset(dst, max_count, value, count);
    if (count > 0 && count > max_count) {
      ExpectFailure(status, ACL_ERROR_RT_PARAM_INVALID, "count > maxCount was accepted");
      return;
    }
    Require(status == ACL_SUCCESS, "a valid memset failed");
    if (queued) Require(aclrtSynchronizeStream(stream_) == ACL_SUCCESS, "synchronisation failed");
    std::memset(to->expected.data() + at, value, count);
  }

  ByteReader &bytes_;
  aclrtStream stream_ = nullptr;
  std::vector<Block> blocks_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ByteReader bytes(data, size);
  Session(bytes).Run();
  return 0;
}
