// Fuzz targets, one per reader of the suite: each takes a file's bytes, hands them to the reader
// as that file, and returns when the reader accepts or refuses them. A crash, a hang or a
// sanitizer report is a bug; refusal (std::exception, exit 2 in the program) is the contract.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rope2d::fuzz {

using TargetFn = void (*)(const std::uint8_t* data, std::size_t size);

struct Target {
  const char* name;
  TargetFn run;
};

void safetensors(const std::uint8_t* data, std::size_t size);     // a golden problem file: read_safetensors + load_golden
void manifest(const std::uint8_t* data, std::size_t size);        // manifest.json of a two-file set: open_golden + load_golden
void layout(const std::uint8_t* data, std::size_t size);          // a layout file: layout_from_json + angles
void solution(const std::uint8_t* data, std::size_t size);        // solution.json: prepare_solution
void nightly_config(const std::uint8_t* data, std::size_t size);  // the nightly config: read_nightly_config
void outputs(const std::uint8_t* data, std::size_t size);         // check --outputs: read_safetensors + check_outputs
// The nightly merge's inputs. Besides no crash or hang, each checks what the merge promises:
// a refusal names the file, and an accepted shard's report folder stays under --out.
void shard_result(const std::uint8_t* data, std::size_t size);    // a shard's result: read_shard_result + the merge
void previous_summary(const std::uint8_t* data, std::size_t size);  // an earlier summary.json: reader + regressions
void worst_list(const std::uint8_t* data, std::size_t size);      // a worst-case list: read_worst_list + read_sweep_worst
// A record between the judge and the kernel host (harness/host_protocol.hpp), read both ways:
// an accepted record holds only fields in range and reads back the same.
void host_records(const std::uint8_t* data, std::size_t size);
// A note's text from the Python host (harness/host_notes.hpp), as about the host and about a
// call: an accepted note is a kind of that side with its fields in range; a refusal says why.
void host_notes(const std::uint8_t* data, std::size_t size);
// The torch peers' timings that `rope2d bench --torch` reads (codec/bench_torch.hpp), asked for
// two workloads, with and without the project's kernel: a refusal names where it read them.
void bench_torch(const std::uint8_t* data, std::size_t size);

const std::vector<Target>& targets();

// A fresh scratch folder for this process, with a small golden set copied from the committed one.
const std::string& scratch();

}  // namespace rope2d::fuzz
