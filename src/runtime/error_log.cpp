#include "runtime/error_log.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <deque>
#include <iterator>

#include "acl/acl.h"

namespace aclhost {
namespace {

// A thread that never reads its messages must not grow without bound.
constexpr size_t kMaxPendingMessages = 64;

thread_local std::deque<std::string> pending_messages;
thread_local std::string last_returned_text;

const char *TitleOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kParameter: return "AclNN_Parameter_Error(EZ1001)";
    case ErrorKind::kInternal: return "AclNN_Inner_Error(EZ9999)";
    case ErrorKind::kRuntime: break;
  }
  return "Runtime_Error(EE1001)";
}

std::string Timestamp() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  tm parts{};
  localtime_r(&now.tv_sec, &parts);
  char text[64];
  const size_t length = strftime(text, sizeof text, "%Y-%m-%d-%H:%M:%S", &parts);
  snprintf(text + length, sizeof text - length, ".%03ld", now.tv_nsec / 1000000);
  return text;
}

}  // namespace

void ReportError(ErrorKind kind, const char *format, ...) {
  char body[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(body, sizeof body, format, args);
  va_end(args);
  char line[1200];
  snprintf(line, sizeof line, "[PID:%d] %s %s: %s", static_cast<int>(getpid()), Timestamp().c_str(),
           TitleOf(kind), body);
  if (pending_messages.size() == kMaxPendingMessages) pending_messages.pop_front();
  pending_messages.emplace_back(line);
}

std::string TakePendingErrors() {
  std::string joined;
  for (const std::string &message : pending_messages) {
    if (!joined.empty()) joined += '\n';
    joined += message;
  }
  pending_messages.clear();
  return joined;
}

PendingErrorsSetAside::PendingErrorsSetAside() {
  if (pending_messages.empty()) return;
  earlier_.assign(std::make_move_iterator(pending_messages.begin()), std::make_move_iterator(pending_messages.end()));
  pending_messages.clear();
}

PendingErrorsSetAside::~PendingErrorsSetAside() {
  pending_messages.clear();
  pending_messages.insert(pending_messages.end(), std::make_move_iterator(earlier_.begin()),
                          std::make_move_iterator(earlier_.end()));
}

}  // namespace aclhost

extern "C" const char *aclGetRecentErrMsg(void) {
  if (aclhost::pending_messages.empty()) return nullptr;
  aclhost::last_returned_text = aclhost::TakePendingErrors();
  return aclhost::last_returned_text.c_str();
}
