// Thread-local error messages, read back by aclGetRecentErrMsg(). Every layer reports here.
#pragma once

#include <string>
#include <vector>

#include "common/export.h"

namespace aclhost {

// Who reports: decides the title in front of the message.
enum class ErrorKind { kRuntime, kParameter, kInternal };

// Records a printf-style message for the calling thread.
ACLHOST_EXPORT void ReportError(ErrorKind kind, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

// Removes and returns the messages pending on the calling thread (joined by newlines).
ACLHOST_EXPORT std::string TakePendingErrors();

// While alive, keeps the calling thread's pending messages apart, so that work run on this
// thread on another's behalf (a stream task run by the caller) reports into an empty log that
// TakePendingErrors drains; the earlier messages are pending again afterwards, in place of
// whatever the work left. Allocates nothing when no message is pending (it runs once per stream
// task).
class ACLHOST_EXPORT PendingErrorsSetAside {
 public:
  PendingErrorsSetAside();
  ~PendingErrorsSetAside();
  PendingErrorsSetAside(const PendingErrorsSetAside &) = delete;
  PendingErrorsSetAside &operator=(const PendingErrorsSetAside &) = delete;

 private:
  std::vector<std::string> earlier_;
};

}  // namespace aclhost
