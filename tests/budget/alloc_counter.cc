// A heap-allocation counter preloaded into `gpugate serve` (LD_PRELOAD) for
// tests/budget/budget.py's `heap` budget: every malloc, calloc, realloc and aligned allocation of
// the whole process, from any library (OpenSSL's included), counted with its bytes by the call
// stack that made it.
//
//   GPUGATE_ALLOC_COUNTS=FILE LD_PRELOAD=libgpugate_alloc_counter.so gpugate serve ...
//
// FILE is created and mapped shared: a Header, then Header::slots Sites, each a distinct stack
// (up to kDepth return addresses, innermost first, the counter's own frames left out) with the
// calls and bytes it allocated. Another process reads FILE whenever it likes: the difference
// between two reads is what the process allocated between them, so warm-up (start-up, the
// handshake, first requests) is left out by reading once it is over. budget.py maps the
// addresses to libraries and functions through /proc/PID/maps and addr2line.
//
// Without GPUGATE_ALLOC_COUNTS, or before the file is mapped (allocations made while libraries
// start), every call goes straight to glibc's allocator uncounted. Stacks beyond the table's
// slots are counted in Header::lost, so a reader can tell that a figure is incomplete.
//
// Thread-safe: one spin lock around the table, which no allocation holds for long. Not for
// sanitized builds, whose own allocator this would bypass.
#include <execinfo.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace {

constexpr uint32_t kMagic = 0x41434e54;  // "ACNT"
constexpr uint32_t kSlots = 8192;
constexpr uint32_t kDepth = 48;
constexpr int kSkip = 2;  // Count and the interposed function

// The layout tests/budget/heap_sites.py reads: a Header ("<IIIIQQII"), then kSlots Sites
// ("<QQQII" and kDepth frames).
struct Header {
  uint32_t magic;
  uint32_t slots;
  uint32_t depth;
  uint32_t unused;
  std::atomic<uint64_t> lost;   // allocations whose stack found no free slot
  std::atomic<uint64_t> frees;  // free() of a non-null pointer, uncounted by stack
  std::atomic<uint32_t> lock;
  uint32_t unused2;
};
struct Site {
  uint64_t hash;  // 0: free slot
  uint64_t calls;
  uint64_t bytes;
  uint32_t depth;
  uint32_t unused;
  uint64_t frames[kDepth];
};

Header* table = nullptr;  // set once, by the constructor, before any counting
Site* sites = nullptr;
// Set while this thread is counting: an allocation made by the unwinder itself (the first
// backtrace loads libgcc_s) passes straight through.
__thread bool inside __attribute__((tls_model("initial-exec"))) = false;

uint64_t Hash(void* const* frames, int n) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the addresses
  for (int i = 0; i < n; ++i) {
    h ^= reinterpret_cast<uintptr_t>(frames[i]);
    h *= 1099511628211ull;
  }
  return h | 1;  // never 0, the free slot's mark
}

void Record(void* const* frames, int n, size_t bytes) {
  const uint64_t h = Hash(frames, n);
  while (table->lock.exchange(1, std::memory_order_acquire) != 0) {
  }
  for (uint32_t i = 0, at = static_cast<uint32_t>(h % kSlots); i < kSlots; ++i) {
    Site& s = sites[(at + i) % kSlots];
    if (s.hash == 0) {
      s.depth = static_cast<uint32_t>(n);
      for (int f = 0; f < n; ++f) s.frames[f] = reinterpret_cast<uintptr_t>(frames[f]);
      s.hash = h;
    } else if (s.hash != h || s.depth != static_cast<uint32_t>(n) ||
               std::memcmp(s.frames, frames, n * sizeof(void*)) != 0) {
      continue;
    }
    s.calls += 1;
    s.bytes += bytes;
    table->lock.store(0, std::memory_order_release);
    return;
  }
  table->lost.fetch_add(1, std::memory_order_relaxed);
  table->lock.store(0, std::memory_order_release);
}

// Kept out of line so that kSkip frames are exactly this and its caller.
[[gnu::noinline]] void Count(size_t bytes) {
  if (table == nullptr || inside) return;
  inside = true;
  void* frames[kDepth + kSkip];
  int n = backtrace(frames, kDepth + kSkip);
  if (n > kSkip) Record(frames + kSkip, n - kSkip, bytes);
  inside = false;
}

__attribute__((constructor)) void Start() {
  const char* path = std::getenv("GPUGATE_ALLOC_COUNTS");
  if (path == nullptr) return;
  const size_t size = sizeof(Header) + kSlots * sizeof(Site);
  int fd = ::open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) std::abort();
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) std::abort();
  void* warm[4];
  inside = true;
  backtrace(warm, 4);  // loads the unwinder now, not inside some library's allocation
  inside = false;
  auto* h = static_cast<Header*>(p);  // the file is zeroed: every slot free, the lock open
  h->slots = kSlots;
  h->depth = kDepth;
  h->magic = kMagic;
  sites = reinterpret_cast<Site*>(h + 1);
  table = h;
}

}  // namespace

extern "C" {

void* malloc(size_t n) {
  Count(n);
  return __libc_malloc(n);
}

void* calloc(size_t n, size_t size) {
  Count(n * size);
  return __libc_calloc(n, size);
}

void* realloc(void* p, size_t n) {
  Count(n);
  return __libc_realloc(p, n);
}

void free(void* p) {
  if (p != nullptr && table != nullptr) table->frees.fetch_add(1, std::memory_order_relaxed);
  __libc_free(p);
}

void* memalign(size_t align, size_t n) {
  Count(n);
  return __libc_memalign(align, n);
}

void* aligned_alloc(size_t align, size_t n) {
  Count(n);
  return __libc_memalign(align, n);
}

int posix_memalign(void** out, size_t align, size_t n) {
  if (align % sizeof(void*) != 0 || (align & (align - 1)) != 0) return EINVAL;
  Count(n);
  void* p = __libc_memalign(align, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"
