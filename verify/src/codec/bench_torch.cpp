// The torch peers' timings read through their schema, then against the workloads asked for
// (bench_torch.hpp).
#include "codec/bench_torch.hpp"

#include "codec/input.hpp"
#include "codec/json_schema.hpp"

namespace rope2d::verify {

nlohmann::json read_bench_torch(const std::string& text, const std::string& where, const std::vector<std::string>& workloads,
                                bool paired) {
  nlohmann::json j = read_json_text(text, where, JsonFormat::bench_torch);
  const nlohmann::json& rows = j["workloads"];
  if (rows.size() != workloads.size())
    bad_input(where, "workloads", "an array of " + std::to_string(workloads.size()) + " (one row per workload asked for)",
              brief(rows));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::string at = "workloads[" + std::to_string(k) + "]";
    if (rows[k]["workload"] != workloads[k])
      bad_input(where, at + ".workload", "\"" + workloads[k] + "\" (the workloads in the order asked for)", brief(rows[k]["workload"]));
    if (!paired) continue;
    for (const char* key : {"rope2d", "paired_events"})
      if (!rows[k].contains(key))
        bad_input(where, at + "." + key, "the project's kernel timed beside the peers (they ran with --library)", "nothing");
  }
  return j;
}

}  // namespace rope2d::verify
