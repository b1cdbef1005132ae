// The report of a merged night under <root>/<date>/: summary.md for people (regressions first),
// junit.xml for CI and summary.json (nightly_summary.hpp), after comparing the night with the
// newest earlier one under root. Text from shard files is written as text (markdown_text.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "products/nightly/nightly_summary.hpp"

namespace rope2d::verify {

// summary.md of a night whose files lie in dir (a report or log is linked only when there).
std::string nightly_markdown(const NightSummary& n, const std::string& dir);

// junit.xml: one suite each for the verifier runs, the golden set, the sweep and the
// regressions. A kernel whose verify failed to run is an <error>, one judged incorrect a <failure>.
std::string nightly_junit(const NightSummary& n);

struct NightReport {
  bool ok = false;        // everything passed and nothing regressed
  std::string markdown;   // summary.md's text
  std::string path;       // where summary.md was written
};

// Compares n with the newest earlier dated folder under root that has a summary.json (its
// regressions, status and previous filled in), then writes summary.md, junit.xml and `extra`
// (the night's worst-case list) under root/<date>/: all rendered first, then written whole or
// not at all, summary.json last (it marks a whole report). Throws std::invalid_argument for a
// date that names no folder.
NightReport write_nightly_report(const std::string& root, NightSummary n,
                                 const std::vector<std::pair<std::string, std::string>>& extra = {});

// The night's worst-case list ({path, text}), joined from its shards' lists; none when the
// sweep did not run, or when one shard's range was the whole range (its list is the night's).
std::vector<std::pair<std::string, std::string>> nightly_merged_worst(
    const std::string& root, const NightSummary& merged, const std::vector<std::pair<std::string, nlohmann::json>>& shards);

}  // namespace rope2d::verify
