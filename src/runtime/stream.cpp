#include "runtime/stream.h"

#include <utility>

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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
    ++enqueued_;
  }
  work_ready_.notify_one();
}

aclError Stream::Synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = enqueued_;
  work_done_.wait(lock, [&] { return completed_ >= target; });
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
    work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    StreamTask task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    const aclError result = task();
    std::string messages = result == ACL_SUCCESS ? std::string() : TakePendingErrors();
    task = nullptr;  // release what the task captured before reporting completion
    lock.lock();
    if (result != ACL_SUCCESS && first_failure_ == ACL_SUCCESS) {
      first_failure_ = result;
      first_failure_messages_ = std::move(messages);
    }
    ++completed_;
    work_done_.notify_all();
  }
}

}  // namespace aclhost
