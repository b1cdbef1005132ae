// The angle sweep's result as `rope2d sweep` and the nightly report it: sweep.json, one
// paragraph of Markdown, and the files written for a sweep (sweep.json and the CORE-MATH-style
// worst-case list sweep_worst.txt, sweep_worst.hpp). One view, both commands.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "products/sweep/sweep.hpp"

namespace rope2d::verify {

nlohmann::json sweep_json(const SweepResult& r);
std::string sweep_markdown(const SweepResult& r);
// dir a directory or nothing, sweep.json and sweep_worst.txt in it regular files or nothing,
// else invalid_argument naming label (the option that gave dir; empty: the paths alone).
void check_sweep_folder(const std::string& dir, const std::string& label = "");
// Writes sweep.json and sweep_worst.txt under dir (created), atomically, after
// check_sweep_folder; `command` and `device` go into the list's header.
void write_sweep_files(const std::string& dir, const SweepResult& r, const std::string& command, const std::string& device);

}  // namespace rope2d::verify
