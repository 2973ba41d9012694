// Throughput of the Xet formats (src/hub/xet) on 64 MiB, one thread, CPU time, against OpenSSL's
// SHA-256 measured in the same run. Build against a configured build dir, then run:
//   g++ -std=c++20 -O2 -Isrc bench/xet_formats.cpp build-release/src/hub/xet/libkb_hub_xet.a
//     build-release/src/util/libkb_util.a -llz4 -lcrypto -o /tmp/xet_formats (one line)
//   /tmp/xet_formats
// Results of 2026-11-23 are in bench/results/xet_formats.txt.
#include "hub/xet/blake3.h"
#include "hub/xet/chunking.h"
#include "hub/xet/xorb.h"
#include "util/hash.h"
#include <cstdio>
#include <cstring>
#include <ctime>
using namespace kb::hub::xet;
// CPU time of this thread: the machine is shared (load ~20 on 2 cores), wall time would mostly measure waiting.
double cpu_now() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
template <class F> double mbps(size_t bytes, F f) { double t0 = cpu_now(); f(); return bytes / (cpu_now() - t0) / 1e6; }
int main() {
  size_t n = 64u << 20;
  std::string random(n, '\0'); uint64_t x = 1; for (size_t i = 0; i < n; i += 8) { x = x * 6364136223846793005ull + 1442695040888963407ull; uint64_t z = x ^ (x >> 29); memcpy(&random[i], &z, 8); }
  std::string text; for (int i = 0; text.size() < n; ++i) text += "line " + std::to_string(i * 7919 % 100000) + " of some text\n"; text.resize(n);
  double sha256 = mbps(n, [&]{ volatile auto d = kb::util::hash_bytes(kb::util::HashAlgorithm::sha256, random); (void)d; });
  double blake3 = mbps(n, [&]{ volatile auto d = blake3_hash(random); (void)d; });
  printf("sha256 (OpenSSL)     %7.0f MB/s\n", sha256);
  printf("blake3 (ours)        %7.0f MB/s  (%.2fx sha256)\n", blake3, blake3 / sha256);
  printf("chunk boundaries     %7.0f MB/s\n", mbps(n, [&]{ volatile auto l = chunk_lengths(random).size(); (void)l; }));
  printf("chunk + hash         %7.0f MB/s\n", mbps(n, [&]{ volatile auto l = chunk_and_hash(random).size(); (void)l; }));
  for (auto* data : {&random, &text}) {
    const char* name = data == &random ? "random" : "text";
    std::vector<std::string> chunks; Chunker c; auto rec = [&](std::string_view s) { chunks.emplace_back(s); }; c.update(*data, rec); c.finish(rec);
    SerializedXorb xorb;
    double build = mbps(n, [&]{ XorbBuilder b(true); size_t used = 0; for (auto& ch : chunks) { if (!b.add_chunk(ch)) break; used += ch.size(); } xorb = b.finish(); });
    double parse = mbps(xorb.info.unpacked_size, [&]{ auto r = verify_xorb(xorb.bytes, xorb.info.hash); if (!r) printf("fail\n"); });
    printf("%-6s xorb: build (lz4+bg4) %6.0f MB/s, verify_xorb %6.0f MB/s (unpacked), %zu chunks, %.1f MiB -> %.1f MiB\n", name, build, parse, xorb.info.chunks.size(), xorb.info.unpacked_size / 1048576.0, xorb.bytes.size() / 1048576.0);
  }
}
