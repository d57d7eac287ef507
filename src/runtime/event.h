// Events: markers in a stream that complete when all earlier work of the stream is done.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace aclhost {

class Event {
 public:
  using Clock = std::chrono::steady_clock;

  // Called on the recording thread; returns the record number the stream task must complete.
  uint64_t BeginRecord();
  // Called from the stream when it reaches the record.
  void Complete(uint64_t record);
  // Waits until the latest record issued before the call has completed.
  void Wait();
  // False when never recorded or the latest record has not completed yet.
  bool Timestamp(Clock::time_point *time, bool *recorded);

 private:
  std::mutex mutex_;
  std::condition_variable completed_cv_;
  uint64_t records_issued_ = 0;
  uint64_t records_completed_ = 0;
  Clock::time_point completion_time_;
};

}  // namespace aclhost
