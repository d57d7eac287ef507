#include "runtime/stream.h"

#include <exception>
#include <new>
#include <utility>

#include "acl/error_codes/rt_error_codes.h"

#include "runtime/error_log.h"

namespace aclhost {

Stream::Stream() : worker_([this] { RunWorker(); }) {}

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_one();
  worker_.join();
}

void Stream::Enqueue(StreamTask task, Dispatch dispatch) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (dispatch == Dispatch::kInlineWhenIdle && queue_.empty() && !busy_) {
    ++enqueued_;
    busy_ = true;
    lock.unlock();
    Execute(task);
    return;
  }
  queue_.push_back(std::move(task));  // may throw; counted only once it is in
  ++enqueued_;
  lock.unlock();
  work_ready_.notify_one();
}

namespace {

// A task that throws fails like one that returns an error: the worker survives, the stream goes on.
aclError RunGuarded(StreamTask &task) {
  try {
    return task();
  } catch (const std::bad_alloc &) {
    ReportError(ErrorKind::kRuntime, "queued work ran out of memory");
    return ACL_ERROR_RT_MEMORY_ALLOCATION;
  } catch (const std::exception &error) {
    ReportError(ErrorKind::kInternal, "queued work failed: %s", error.what());
    return ACL_ERROR_RT_INTERNAL_ERROR;
  }
}

}  // namespace

void Stream::Execute(StreamTask &task) {
  const aclError result = RunGuarded(task);
  std::string messages = result == ACL_SUCCESS ? std::string() : TakePendingErrors();
  task = nullptr;  // release what the task captured before reporting completion
  bool wake_synchronizers, wake_worker;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (result != ACL_SUCCESS && first_failure_ == ACL_SUCCESS) {
      first_failure_ = result;
      first_failure_messages_ = std::move(messages);
    }
    ++completed_;
    busy_ = false;
    wake_synchronizers = synchronizers_waiting_ > 0;
    wake_worker = !queue_.empty() || stopping_;  // it holds queued work back while a task runs
  }
  // Waking a thread is a system call: only for those who wait.
  if (wake_synchronizers) work_done_.notify_all();
  if (wake_worker) work_ready_.notify_one();
}

aclError Stream::Synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = enqueued_;
  ++synchronizers_waiting_;
  work_done_.wait(lock, [&] { return completed_ >= target; });
  --synchronizers_waiting_;
  const aclError failure = first_failure_;
  if (failure != ACL_SUCCESS) {
    ReportError(ErrorKind::kRuntime, "aclrtSynchronizeStream: queued work failed with %d: %s", failure,
                first_failure_messages_.c_str());
    first_failure_ = ACL_SUCCESS;
    first_failure_messages_.clear();
  }
  return failure;
}

void Stream::RunWorker() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return (stopping_ && !busy_) || (!queue_.empty() && !busy_); });
    if (queue_.empty()) return;  // stopping and drained
    StreamTask task = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Execute(task);
    lock.lock();
  }
}

}  // namespace aclhost
