// The angle sweep's result as the nightly and `rope2d sweep` report it: the summary's JSON,
// one paragraph of Markdown, and the files written beside them (cmd_sweep.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rope2d/verify/sweep.hpp"

namespace rope2d::cli {

nlohmann::json sweep_json(const verify::SweepResult& r);
std::string sweep_markdown(const verify::SweepResult& r);
// Writes sweep.json and sweep_worst.txt (the CORE-MATH-style worst-case list, sweep_worst.hpp)
// under dir, atomically; `command` and `device` go into the list's header.
void write_sweep_files(const std::string& dir, const verify::SweepResult& r, const std::string& command,
                       const std::string& device);

}  // namespace rope2d::cli
