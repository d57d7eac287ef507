#include "runtime/event.h"

#include <memory>

#include "acl/acl.h"
#include "runtime/context.h"
#include "runtime/error_log.h"

namespace aclhost {

uint64_t Event::BeginRecord() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ++records_issued_;
}

void Event::Complete(uint64_t record) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (record > records_completed_) {
      records_completed_ = record;
      completion_time_ = Clock::now();
    }
  }
  completed_cv_.notify_all();
}

void Event::Wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = records_issued_;
  completed_cv_.wait(lock, [&] { return records_completed_ >= target; });
}

bool Event::Timestamp(Clock::time_point *time, bool *recorded) {
  std::lock_guard<std::mutex> lock(mutex_);
  *recorded = records_issued_ > 0;
  if (!*recorded || records_completed_ < records_issued_) return false;
  *time = completion_time_;
  return true;
}

namespace {

aclError LookUpEvent(aclrtEvent handle, const char *caller, std::shared_ptr<Event> *event) {
  RuntimeState &state = GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  const aclError status = CheckInitialised(caller);
  if (status != ACL_SUCCESS) return status;
  const auto found = state.events.find(handle);
  if (found == state.events.end()) {
    ReportError(ErrorKind::kRuntime, "%s: event %p is not a live event from aclrtCreateEvent", caller, handle);
    return ACL_ERROR_RT_INVALID_HANDLE;
  }
  *event = found->second;
  return ACL_SUCCESS;
}

aclError RejectNullEvent(const char *caller, const char *parameter) {
  ReportError(ErrorKind::kRuntime, "%s: %s is NULL; expected an event from aclrtCreateEvent", caller, parameter);
  return ACL_ERROR_INVALID_PARAM;
}

}  // namespace
}  // namespace aclhost

using aclhost::Event;
using aclhost::ErrorKind;
using aclhost::ReportError;

extern "C" {

aclError aclrtCreateEvent(aclrtEvent *event) {
  if (event == nullptr) return aclhost::RejectNullEvent("aclrtCreateEvent", "event");
  aclhost::RuntimeState &state = aclhost::GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  const aclError status = aclhost::CheckDeviceSelected("aclrtCreateEvent");
  if (status != ACL_SUCCESS) return status;
  auto created = std::make_shared<Event>();
  *event = created.get();
  state.events.emplace(created.get(), std::move(created));
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  if (event == nullptr) return aclhost::RejectNullEvent("aclrtRecordEvent", "event");
  std::shared_ptr<Event> target;
  aclError status = aclhost::LookUpEvent(event, "aclrtRecordEvent", &target);
  if (status != ACL_SUCCESS) return status;
  const uint64_t record = target->BeginRecord();
  status = aclhost::EnqueueOnStream(stream, [target, record] {
    target->Complete(record);
    return ACL_SUCCESS;
  }, "aclrtRecordEvent");
  // A record that never reaches a stream must not leave waiters hanging.
  if (status != ACL_SUCCESS) target->Complete(record);
  return status;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  if (event == nullptr) return aclhost::RejectNullEvent("aclrtSynchronizeEvent", "event");
  std::shared_ptr<Event> target;
  const aclError status = aclhost::LookUpEvent(event, "aclrtSynchronizeEvent", &target);
  if (status != ACL_SUCCESS) return status;
  target->Wait();
  return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  if (ms == nullptr) {
    ReportError(ErrorKind::kRuntime, "aclrtEventElapsedTime: ms is NULL; expected a pointer to a float");
    return ACL_ERROR_INVALID_PARAM;
  }
  if (startEvent == nullptr) return aclhost::RejectNullEvent("aclrtEventElapsedTime", "startEvent");
  if (endEvent == nullptr) return aclhost::RejectNullEvent("aclrtEventElapsedTime", "endEvent");
  std::shared_ptr<Event> events[2];
  const aclrtEvent handles[2] = {startEvent, endEvent};
  const char *names[2] = {"startEvent", "endEvent"};
  Event::Clock::time_point times[2];
  for (int i = 0; i < 2; ++i) {
    const aclError status = aclhost::LookUpEvent(handles[i], "aclrtEventElapsedTime", &events[i]);
    if (status != ACL_SUCCESS) return status;
    bool recorded = false;
    if (!events[i]->Timestamp(&times[i], &recorded)) {
      if (!recorded) {
        ReportError(ErrorKind::kRuntime, "aclrtEventElapsedTime: %s was never recorded; expected aclrtRecordEvent first", names[i]);
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
      }
      ReportError(ErrorKind::kRuntime, "aclrtEventElapsedTime: %s has not completed; synchronise it first", names[i]);
      return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    }
  }
  *ms = std::chrono::duration<float, std::milli>(times[1] - times[0]).count();
  return ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  if (event == nullptr) return aclhost::RejectNullEvent("aclrtDestroyEvent", "event");
  aclhost::RuntimeState &state = aclhost::GetRuntimeState();
  std::lock_guard<std::mutex> lock(state.mutex);
  const aclError status = aclhost::CheckInitialised("aclrtDestroyEvent");
  if (status != ACL_SUCCESS) return status;
  if (state.events.erase(event) == 0) {
    ReportError(ErrorKind::kRuntime, "aclrtDestroyEvent: event %p is not a live event (destroyed twice?)", event);
    return ACL_ERROR_RT_INVALID_HANDLE;
  }
  return ACL_SUCCESS;
}

}  // extern "C"
