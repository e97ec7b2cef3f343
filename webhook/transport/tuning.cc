#include "transport/tuning.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>

namespace gpugate::transport {

size_t AvailableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? static_cast<size_t>(n) : 1;
}

size_t RaiseOpenFileLimit(size_t wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    rlim_t raised =
        limit.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(limit.rlim_max, wanted);
    if (raised > limit.rlim_cur) {
      rlimit next{raised, limit.rlim_max};
      if (setrlimit(RLIMIT_NOFILE, &next) == 0) limit.rlim_cur = raised;
    }
  }
  return limit.rlim_cur == RLIM_INFINITY ? wanted : static_cast<size_t>(limit.rlim_cur);
}

}  // namespace gpugate::transport
