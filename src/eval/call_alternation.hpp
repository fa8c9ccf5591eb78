#pragma once
// Two workers' timing requests taken call by call in turn (docs/eval.md, "Alternating calls"):
// side 0's call, then side 1's, then side 0's again. Each worker asks the parent for a call's plan
// just before the call (timing_log.hpp); the parent answers one side's question only when the
// other side has finished a call since, that is when the other side asks its own next question or
// its request ends. Internal to src/eval (session.cpp, paired.cpp).
//
// Why: the 2-core CPU machine's speed drifts by up to 30% between half-second windows (the same
// GELU call at 4.9 to 9.1 ms, window medians, nothing else running). Turns of paired rounds a second
// long each catch a different window; two calls 50 ms apart see the same one.
#include <condition_variable>
#include <mutex>

namespace headroom::eval {

class call_alternation {
 public:
  // Side `side` is about to ask for the plan of a call. Its earlier call, if any, is over: the
  // other side may run one now. Returns once it is this side's turn again, or at once when the
  // other side's request has ended. `before_wait` runs, with the lock not held, once this side has
  // passed its turn on and will wait (a candidate's sandbox is frozen then); `after_wait` once it
  // has its turn back.
  template <class Before, class After>
  void before_call(int side, Before&& before_wait, After&& after_wait) {
    std::unique_lock lock(mutex_);
    const int other = 1 - side;
    if (called_[side] && !ended_[other]) {
      holder_ = other;
      changed_.notify_all();
    }
    called_[side] = true;
    if (holder_ == side || ended_[other]) return;
    lock.unlock();
    before_wait();
    lock.lock();
    changed_.wait(lock, [&] { return holder_ == side || ended_[other]; });
    lock.unlock();
    after_wait();
  }
  void before_call(int side) {
    before_call(
        side, [] {}, [] {});
  }
  // Side `side`'s request has ended (answered, failed or timed out): the other side no longer waits.
  void end(int side) {
    std::lock_guard lock(mutex_);
    ended_[side] = true;
    holder_ = 1 - side;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int holder_ = 0;  // whose call may run: side 0 goes first
  bool called_[2] = {false, false};
  bool ended_[2] = {false, false};
};

}  // namespace headroom::eval
