// The torch peers' timings of `rope2d bench --torch`: what python3 -m rope2d.bench_torch prints
// (python/rope2d/bench_torch.py) read through the one reader and its schema
// (verify/schema/bench-torch.schema.json), then checked against what was asked of it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rope2d::verify {

// The peers' output `text` (`where` names it in messages): valid against the schema, one row
// per name of `workloads` ("2x773") in that order, and where `paired` (the peers ran the
// project's kernel too) each row holds that kernel's times and its sign test against
// torch.compile. Anything else is bad input naming where, the field, expected and found.
nlohmann::json read_bench_torch(const std::string& text, const std::string& where, const std::vector<std::string>& workloads,
                                bool paired);

}  // namespace rope2d::verify
