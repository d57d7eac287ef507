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

void Stream::Enqueue(StreamTask task) {
  std::unique_lock<std::mutex> lock(mutex_);
  queue_.push_back(std::move(task));  // may throw; counted only once it is in
  ++enqueued_;
  lock.unlock();
  work_ready_.notify_one();
}

template <typename Run>
aclError Stream::RunCollectingMessages(Run &run, std::string *messages) {
  // The task's messages belong to the stream (re-reported by the synchronisation that returns
  // its failure), not to whichever thread ran it.
  const PendingErrorsSetAside caller_messages;
  aclError result;
  // A task that throws fails like one that returns an error: the worker survives, the stream goes on.
  try {
    result = run();
  } catch (const std::bad_alloc &) {
    ReportError(ErrorKind::kRuntime, "queued work ran out of memory");
    result = ACL_ERROR_RT_MEMORY_ALLOCATION;
  } catch (const std::exception &error) {
    ReportError(ErrorKind::kInternal, "queued work failed: %s", error.what());
    result = ACL_ERROR_RT_INTERNAL_ERROR;
  }
  *messages = TakePendingErrors();
  return result;
}

bool Stream::RunIfIdle(InlineTask task, void *context) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!queue_.empty() || busy_) return false;
    ++enqueued_;
    busy_ = true;
  }
  auto run = [task, context] { return task(context); };
  std::string messages;
  const aclError result = RunCollectingMessages(run, &messages);
  Complete(result, std::move(messages));
  return true;
}

void Stream::Complete(aclError result, std::string messages) {
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

void Stream::RunFront(std::unique_lock<std::mutex> &lock) {
  StreamTask task = std::move(queue_.front());
  queue_.pop_front();
  busy_ = true;
  lock.unlock();
  std::string messages;
  const aclError result = RunCollectingMessages(task, &messages);
  task = nullptr;  // release what the task captured before reporting completion
  Complete(result, std::move(messages));
  lock.lock();
}

aclError Stream::Synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = enqueued_;
  ++synchronizers_waiting_;
  // A waiting caller runs the queued work the worker has not taken yet, in order, one task at a
  // time as the worker would: it spares the hand-off to the worker and the wake-up back, which
  // cost about 60 us on a virtual machine, for nothing when the caller only waits. Work queued
  // after this call began is left to the worker.
  while (completed_ < target) {
    if (busy_ || queue_.empty()) {
      work_done_.wait(lock);
    } else {
      RunFront(lock);
    }
  }
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
    RunFront(lock);
  }
}

}  // namespace aclhost
