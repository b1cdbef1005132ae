// --trace FILE and --json of `verify` and `check`: the report as SOL-ExecBench's Trace JSON
// lines in a file (products/report/trace.cpp), and report.json on stdout with everything else on stderr.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "rope2d/verify/model/report.hpp"

namespace rope2d::cli {

struct MachineOutputs {
  std::string trace;  // --trace FILE
  bool json = false;  // --json
};

void add_machine_outputs(CLI::App& app, MachineOutputs& m);

// While alive with --json: std::cout writes to stderr (a forked worker inherits it), so that
// stdout holds the JSON alone.
class StdoutForJson {
 public:
  explicit StdoutForJson(bool on) : saved_(on ? std::cout.rdbuf(std::cerr.rdbuf()) : nullptr) {}
  ~StdoutForJson() { restore(); }
  void restore() {
    if (saved_) std::cout.rdbuf(saved_), saved_ = nullptr;
  }
  StdoutForJson(const StdoutForJson&) = delete;
  StdoutForJson& operator=(const StdoutForJson&) = delete;

 private:
  std::streambuf* saved_;
};

// --trace a regular file or nothing (require_output_file), checked before any work is done.
void check_machine_outputs(const MachineOutputs& m);

// Writes the trace (atomically) and prints the JSON, as asked, of the report r.
void emit_machine_outputs(const MachineOutputs& m, const verify::Report& r);
// The same from a report folder's report.json; says on stderr when there is none.
void emit_machine_outputs(const MachineOutputs& m, const std::string& report_dir);

}  // namespace rope2d::cli
