# Compiler flags for the libFuzzer build (GPUGATE_BUILD_FUZZ=ON), included by the top-level
# CMakeLists.txt before the layers so that every library the targets link (and the test suites in
# the same tree) is built with coverage instrumentation, not only the targets themselves.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 16)
  message(FATAL_ERROR
    "GPUGATE_BUILD_FUZZ needs clang 16 or later (libFuzzer is clang's), got "
    "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}: configure with CXX=clang++-16 "
    "(`make fuzz` does). Clang 14 cannot compile libstdc++ 12's std::expected (fuzz/README.md).")
endif()

# libstdc++ 12 declares std::expected only when __cpp_concepts >= 202002L. Clang implements what
# <expected> needs (P0848, conditionally trivial special members) since 16 but advertises
# 202002L only from 19, so before 19 the macro is raised by hand (docs/decisions.md, "Fuzzing").
if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 19)
  add_compile_options(-D__cpp_concepts=202002L -Wno-builtin-macro-redefined -Wno-macro-redefined)
endif()

# Everything is instrumented for coverage (fuzzer-no-link); the top-level CMakeLists.txt adds ASan
# and UBSan (GPUGATE_SANITIZE=address), so any UB aborts and libFuzzer records it as a crash.
# _GLIBCXX_ASSERTIONS bounds-checks the containers.
add_compile_options(-fsanitize=fuzzer-no-link -D_GLIBCXX_ASSERTIONS)
