// The nightly dashboard: one static page, <root>/index.html, over every night under the nightly
// root: verdict per night and per shard, the worst error of each kernel and grad dtype as a
// margin to each tier's allowance over time, time per night, regressions marked, links to each
// night's reports. Self-contained (inline SVG and style, no script, nothing fetched), written
// by `rope2d nightly` after each night and by `rope2d report --site ROOT`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "products/nightly/nightly_summary.hpp"
#include "rope2d/verify/model/tier.hpp"

namespace rope2d::verify {

// One shard of a night, from its shard-i-of-N.json (read_shard_result): "passed" when every
// item it holds passed (a run without a GPU counts as skipped), "FAILED" otherwise, or
// "unreadable" with the reason.
struct SiteShard {
  int index = 0, count = 1;
  std::string status, detail;
};

// One dated folder under the root holding a summary.json, read through the validated summary
// reader (read_previous_summary); one that does not read keeps the reason and is shown as such.
struct SiteNight {
  std::string date;
  std::optional<NightSummary> summary;
  std::string unreadable;
  std::vector<SiteShard> shards;  // empty: the night ran in one process
};

// The worst error of one verifier run (kernel, grad dtype) in units of 2^-24 S over its sets
// that ran: failing sets always, passing sets only where their maximum is within the S term of
// float32-bound (beyond it a passing set's error is allowed by the |ref| and subnormal terms,
// which no single margin describes; those are counted in `beyond_s_term`). Infinity for a set
// whose error is not finite; none when no set ran.
struct RunWorst {
  std::optional<double> max;
  std::string set;
  int beyond_s_term = 0;
};
RunWorst run_worst(const NightVerify& v);

// The margin of a worst error to a bound-based tier's allowance: its S term over the error
// (above 1: inside the allowance by that factor). The tiers it is given for: every tier whose
// allowance is a multiple of S.
double tier_margin(Tier t, double worst);

std::vector<SiteNight> read_nights(const std::string& root);
// The page; root is where the nights lie (a run's report is linked only when there).
std::string nightly_site_html(const std::vector<SiteNight>& nights, const std::string& root);

// Writes <root>/index.html (atomically) and returns its path.
std::string write_nightly_site(const std::string& root);

}  // namespace rope2d::verify
