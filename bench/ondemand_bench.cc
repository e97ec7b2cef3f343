// What simdjson's On-Demand API would cost on the request path, beside the DOM parse gpugate
// uses (docs/decisions.md, "simdjson's DOM on the request path, not On-Demand"):
//
//   dom          dom::parser::parse: the whole body validated into a tape (what DecodeReview
//                starts with)
//   od-visit     On-Demand, every value of the body visited once (objects, arrays, strings,
//                numbers, literals): what it would take for On-Demand to refuse every malformed
//                body the DOM refuses, since On-Demand checks only the values that are read
//   od-skip      On-Demand, only request.options.kind read: everything before it is skipped
//                over, checked for little more than balanced brackets (a lower bound for any
//                reader; it would answer bodies that are not JSON)
//
//   gpugate_ondemand_bench BODY.json...   (bodies: python3 bench/load/make_bodies.py DIR FIXTURE)
//
// Prints, per body, the median over 5 runs of the nanoseconds of CPU per parse of each. This
// file is compiled for Haswell (AVX2), so that On-Demand, which is compiled into the caller, runs
// the same kernel as the DOM parser's runtime dispatch picks on such a machine; the benchmark
// needs one. Build it as bench/CMakeLists.txt does, with -DNDEBUG (a Release build): without
// it, simdjson's development checks slow On-Demand two- to three-fold. Not part of gpugate.
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using simdjson::error_code;
namespace od = simdjson::ondemand;

size_t sink = 0;  // keeps the visits from being optimised away

error_code Visit(od::value value) {
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  switch (type) {
    case od::json_type::object: {
      od::object object;
      if (error_code e = value.get_object().get(object)) return e;
      for (auto field : object) {
        od::field f;
        if (error_code e = std::move(field).get(f)) return e;
        std::string_view key;
        if (error_code e = f.unescaped_key().get(key)) return e;
        sink += key.size();
        if (error_code e = Visit(f.value())) return e;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::array: {
      od::array array;
      if (error_code e = value.get_array().get(array)) return e;
      for (auto item : array) {
        od::value v;
        if (error_code e = std::move(item).get(v)) return e;
        if (error_code e = Visit(v)) return e;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::string: {
      std::string_view s;
      if (error_code e = value.get_string().get(s)) return e;
      sink += s.size();
      return simdjson::SUCCESS;
    }
    case od::json_type::number: {
      od::number n;
      return value.get_number().get(n);
    }
    case od::json_type::boolean: {
      bool b;
      if (error_code e = value.get_bool().get(b)) return e;
      sink += b;
      return simdjson::SUCCESS;
    }
    case od::json_type::null: {
      bool null = false;
      if (error_code e = value.is_null().get(null)) return e;
      return null ? simdjson::SUCCESS : simdjson::INCORRECT_TYPE;
    }
  }
  return simdjson::INCORRECT_TYPE;
}

// The thread's CPU time, so that other processes on the machine do not count.
double CpuNanos() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

template <typename F>
double NanosPerCall(int count, F&& f) {
  std::vector<double> runs;
  for (int run = 0; run < 5; ++run) {
    const double start = CpuNanos();
    for (int i = 0; i < count; ++i) f();
    runs.push_back((CpuNanos() - start) / count);
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpugate_ondemand_bench BODY.json...\n");
    return 2;
  }
  std::printf("%-12s %8s %10s %10s %10s  (CPU ns per parse, median of 5 runs; kernel %s)\n", "body",
              "bytes", "dom", "od-visit", "od-skip",
              simdjson::get_active_implementation()->name().c_str());
  for (int a = 1; a < argc; ++a) {
    std::ifstream in(argv[a], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const simdjson::padded_string body(text.str());
    simdjson::dom::parser dom;
    od::parser ondemand;
    bool ok = true;
    const int count = static_cast<int>(std::max<size_t>(200, 200'000'000 / (body.size() * 50)));
    const double domNs = NanosPerCall(count, [&] {
      simdjson::dom::element root;
      ok = ok && dom.parse(body).get(root) == simdjson::SUCCESS;
    });
    const double visitNs = NanosPerCall(count, [&] {
      od::document doc;
      od::object root;
      ok = ok && ondemand.iterate(body).get(doc) == simdjson::SUCCESS &&
           doc.get_object().get(root) == simdjson::SUCCESS;
      if (!ok) return;
      for (auto field : root) {
        od::field f;
        ok = ok && std::move(field).get(f) == simdjson::SUCCESS && Visit(f.value()) == 0;
      }
    });
    const double skipNs = NanosPerCall(count, [&] {
      od::document doc;
      std::string_view kind;
      ok = ok && ondemand.iterate(body).get(doc) == simdjson::SUCCESS &&
           doc["request"]["options"]["kind"].get(kind) == simdjson::SUCCESS;
    });
    if (!ok) {
      std::fprintf(stderr, "%s: does not parse as an AdmissionReview with request.options\n",
                   argv[a]);
      return 1;
    }
    std::string name = argv[a];
    name = name.substr(name.find_last_of('/') + 1);
    std::printf("%-12s %8zu %10.0f %10.0f %10.0f\n", name.c_str(), body.size(), domNs, visitNs,
                skipNs);
  }
  return sink == 0 ? 1 : 0;
}
