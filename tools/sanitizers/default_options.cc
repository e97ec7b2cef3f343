// The sanitizers' options, compiled into every executable of a sanitized build (gpugate and the
// two test binaries; GPUGATE_SANITIZE in CMakeLists.txt), so that ctest, a test binary run by
// hand and the gpugate children the integration tests start all behave alike, with no
// environment to set. The first report aborts the process it happens in (several tests expect
// gpugate to exit 1, which a sanitizer's exit code would satisfy); the suppression files beside
// this one name the third-party reports, each with its reason. *_OPTIONS in the environment
// still override these (the runtimes read them after the defaults).
#ifndef GPUGATE_SANITIZER_DIR
#error "GPUGATE_SANITIZER_DIR: the directory of the suppression files"
#endif

#define GPUGATE_STOP_AT_FIRST "halt_on_error=1:abort_on_error=1"

extern "C" {

const char* __asan_default_options() {
  return GPUGATE_STOP_AT_FIRST ":detect_leaks=1:check_initialization_order=1:strict_init_order=1";
}

const char* __lsan_default_options() { return "suppressions=" GPUGATE_SANITIZER_DIR "/lsan.supp"; }

const char* __ubsan_default_options() {
  return GPUGATE_STOP_AT_FIRST ":print_stacktrace=1:suppressions=" GPUGATE_SANITIZER_DIR
                               "/ubsan.supp";
}

const char* __tsan_default_options() {
  return GPUGATE_STOP_AT_FIRST ":second_deadlock_stack=1:suppressions=" GPUGATE_SANITIZER_DIR
                               "/tsan.supp";
}

}  // extern "C"
