// Thread-local error messages, read back by aclGetRecentErrMsg(). Every layer reports here.
#pragma once

#include <string>

#include "common/export.h"

namespace aclhost {

// Who reports: decides the title in front of the message.
enum class ErrorKind { kRuntime, kParameter, kInternal };

// Records a printf-style message for the calling thread.
ACLHOST_EXPORT void ReportError(ErrorKind kind, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

// Removes and returns the messages pending on the calling thread (joined by newlines).
ACLHOST_EXPORT std::string TakePendingErrors();

}  // namespace aclhost
