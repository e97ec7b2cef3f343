// Writes log lines to a file descriptor many at a time instead of one write(2) each. Lines
// gather in a buffer of at most `bufferBytes`; the buffer goes out in one write (more only when
// the kernel takes part of it) when the next line would not fit, when a line asks for it (a
// warning or an error goes out at once, with what is before it), on Flush, every `flushEvery` on
// the sink's own timer thread, and when the sink is destroyed.
//
// No line is dropped for want of room: a caller that finds the buffer full writes it out itself,
// and waits for that write (what every line cost before batching). A line longer than the buffer
// goes out whole, on its own. Lines are lost only when the descriptor refuses them (closed, a
// full disk): those are counted in Stats::droppedLines.
//
// Thread-safe: one mutex guards the buffer and the counters. The timer thread inherits the
// signal mask of the thread that constructs the sink.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace gpugate::transport {

class BatchedSink {
 public:
  struct Options {
    int fd = STDERR_FILENO;  // not owned
    size_t bufferBytes = 64 << 10;
    // How long a line may wait in the buffer; zero: no timer thread (a test flushes by hand).
    std::chrono::milliseconds flushEvery{50};
  };

  struct Stats {
    uint64_t lines = 0;         // lines logged
    uint64_t writes = 0;        // write(2) calls made
    uint64_t droppedLines = 0;  // lines the descriptor refused
  };

  explicit BatchedSink(Options options);
  // Stops the timer thread, then writes out what is buffered.
  ~BatchedSink();
  BatchedSink(const BatchedSink&) = delete;
  BatchedSink& operator=(const BatchedSink&) = delete;

  // Adds one whole line, its newline included. With `flushNow`, the buffer, this line last, is
  // written before Add returns.
  void Add(std::string_view line, bool flushNow);
  // Writes out every line added so far.
  void Flush();
  Stats stats();

 private:
  // Writes the buffer out, if it holds anything. Requires mu_ held.
  void FlushLocked();
  // Writes `data` (holding `lines` lines) out whole, or counts its lines as dropped. Requires
  // mu_ held.
  void WriteLocked(const char* data, size_t size, uint64_t lines);
  void TimerLoop();

  const Options options_;
  std::mutex mu_;
  std::string buffer_;          // guarded by mu_; never longer than options_.bufferBytes
  uint64_t bufferedLines_ = 0;  // guarded by mu_
  Stats stats_;                 // guarded by mu_

  std::mutex timerMu_;
  std::condition_variable timerWake_;
  bool stopping_ = false;  // guarded by timerMu_
  std::thread timer_;
};

}  // namespace gpugate::transport
