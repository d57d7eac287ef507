// In-order asynchronous work queue behind aclrtStream, and the entry point through which the
// other layers enqueue work without knowing how streams are kept.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "acl/acl_base.h"
#include "common/export.h"

namespace aclhost {

// A unit of queued work. A non-zero result is kept (with the messages the task reported) and
// returned by the next synchronisation of its stream.
using StreamTask = std::function<aclError()>;

// Work run at once on the caller's thread (RunIfIdle), by reference: nothing is copied.
using InlineTask = aclError (*)(void *context);

class Stream {
 public:
  Stream();
  ~Stream();  // drains the queue first
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  void Enqueue(StreamTask task);
  // Runs task(context) at once on the calling thread when nothing is queued or running (the
  // stream's order is the same as if it had been queued) and returns true; else runs nothing and
  // returns false. For work smaller than a hand-off to the worker: it also spares the queued
  // task's copy (a heap allocation).
  bool RunIfIdle(InlineTask task, void *context);
  // Waits for every task enqueued before the call; returns (and clears) the first failure since
  // the previous synchronisation, re-reporting its messages on the calling thread.
  aclError Synchronize();

 private:
  void RunWorker();
  // Takes the front task and runs it (lock held on entry and on return, released meanwhile).
  void RunFront(std::unique_lock<std::mutex> &lock);
  // Runs run() (an aclError) guarded, with the messages it reports set aside for the stream;
  // called with the lock released and busy_ set.
  template <typename Run>
  static aclError RunCollectingMessages(Run &run, std::string *messages);
  // Records a task's outcome and that it completed; called with the lock released.
  void Complete(aclError result, std::string messages);

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::deque<StreamTask> queue_;
  uint64_t enqueued_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  bool busy_ = false;  // a task is running, on the worker or inline
  int synchronizers_waiting_ = 0;
  aclError first_failure_ = ACL_SUCCESS;
  std::string first_failure_messages_;
  std::thread worker_;
};

// Enqueues task on stream (NULL = the default stream). Fails, with a message naming caller, when
// the runtime is not initialised, no device is active, or stream is not a live stream.
ACLHOST_EXPORT aclError EnqueueOnStream(aclrtStream stream, StreamTask task, const char *caller);
// Stream::RunIfIdle on stream: *ran tells whether task ran; the failures as EnqueueOnStream's.
ACLHOST_EXPORT aclError RunOnStreamIfIdle(aclrtStream stream, InlineTask task, void *context, const char *caller, bool *ran);

}  // namespace aclhost
