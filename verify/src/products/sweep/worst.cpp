// The angle sweep's worst-case list (sweep_worst.hpp): its header and pair lines, written and
// read back in one form, and the join of the lists of a split range.
#include "products/sweep/sweep_worst.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>

#include "rope2d/ref/floats.hpp"
#include "codec/input.hpp"
#include "codec/worst_list.hpp"
#include "rope2d/ref/worst_list.hpp"

namespace rope2d::verify {

namespace {

constexpr int bound = static_cast<int>(Tier::float32_bound);
constexpr std::size_t head_lines = 5;  // sweep_worst_header's

// The '#' line that heads a pair's cases (without the '#'). The max error is printed to 4
// digits: a join takes the largest of the printed values, which is the printed largest.
std::string pair_line(const SweepPair& p) {
  return fmt::format(" {} (gc={}, gs={}): {} angles, max error {:.4g} x 2^-24 S, {} over float32-bound{}", p.grads.name,
                     ref::hex(p.grads.gc), ref::hex(p.grads.gs), p.angles, p.metrics.max_scaled, p.metrics.over[bound],
                     p.complete ? "" : " (incomplete)");
}

// pair_line read back for a pair with grads g; nothing unless the line is exactly that form.
std::optional<SweepPair> parse_pair_line(const std::string& line, const SweepGrads& g) {
  // No written pair line is near this long; a longer one is refused before the regex, whose
  // libstdc++ matcher recurses once per character (a line of digits would overflow the stack).
  if (line.size() > 400) return std::nullopt;
  const std::string prefix = fmt::format(" {} (gc={}, gs={}): ", g.name, ref::hex(g.gc), ref::hex(g.gs));
  static const std::regex form(R"(([0-9]+) angles, max error (\S+) x 2\^-24 S, ([0-9]+) over float32-bound( \(incomplete\))?)");
  std::smatch m;
  const std::string rest = line.starts_with(prefix) ? line.substr(prefix.size()) : std::string();
  if (!std::regex_match(rest, m, form)) return std::nullopt;
  SweepPair p{g};
  try {
    p.angles = parse_int(m[1].str(), "", 0, std::numeric_limits<std::int64_t>::max());
    p.metrics.max_scaled = ref::parse_float(m[2].str());
    p.metrics.over[bound] = parse_int(m[3].str(), "", 0, std::numeric_limits<std::int64_t>::max());
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  p.complete = !m[4].matched;
  if (!(p.metrics.max_scaled >= 0) || pair_line(p) != line) return std::nullopt;
  return p;
}

[[noreturn]] void refuse(const std::string& path, int line, const std::string& expected, const std::string& found) {
  throw std::invalid_argument(fmt::format("{}:{}: expected {}, found {}", path, line, expected, found));
}

// A line echoed in a message: its first 60 characters.
std::string quoted(const std::string& hash_line) {
  return "'#" + (hash_line.size() > 60 ? hash_line.substr(0, 60) + "...'" : hash_line + "'");
}

// The whole sweep's figures from its pairs'.
void total_of_pairs(SweepResult& r) {
  for (const SweepPair& p : r.pairs) {
    r.angles += p.angles;
    r.metrics.max_scaled = std::max(r.metrics.max_scaled, p.metrics.max_scaled);
    r.metrics.over[bound] += p.metrics.over[bound];
  }
}

}  // namespace

std::string sweep_range_words(std::uint64_t lo, std::uint64_t hi) {
  if (lo == 0 && hi == all_patterns) return "all 2^32 float32 bit patterns";
  std::string s = fmt::format("bit patterns [{:#x}, {:#x})", lo, hi);
  const float a = std::bit_cast<float>(static_cast<std::uint32_t>(lo));
  if (hi <= 0x7f800000 && std::isfinite(a))
    s += fmt::format(" (angles [{}, {}))", ref::hex(a), ref::hex(std::bit_cast<float>(static_cast<std::uint32_t>(hi))));
  return s;
}

std::vector<std::string> sweep_worst_header(const std::string& made_by, const SweepResult& r, const std::string& device) {
  return {fmt::format(" made by: {}", made_by),
          " Inputs \"gc gs t\" (fp32 grads, float32 angle) with the largest errors of the kernel against the correctly",
          " rounded result, in units of 2^-24 S (S = |gc sin t| + |gs cos t|; each case's after its '#'): the worst of each",
          fmt::format(" GPU block (or host piece) of every chunk, {} per grad pair, over the finite angles of {}.",
                      r.pairs.empty() ? 0 : r.pairs.front().worst.size(), sweep_range_words(r.lo, r.hi)),
          fmt::format(" device: {}; {:.1f} s", device, r.seconds)};
}

std::string sweep_worst_list(const SweepResult& r, const std::vector<std::string>& header_lines) {
  std::string s = ref::format_worst_list(header_lines, {}, {});
  for (const SweepPair& p : r.pairs) {
    std::vector<std::vector<double>> cases;
    std::vector<std::string> errors;
    for (const ElementReport& e : p.worst) {
      cases.push_back({e.in.gc, e.in.gs, e.in.t});
      errors.push_back(fmt::format(" {}", e.scaled_error));  // shortest round trip: the join orders by it exactly
    }
    s += ref::format_worst_list({pair_line(p)}, cases, {true, true, true}, errors);
  }
  return s;
}

namespace {

// What a list is read against: its file, the range of bit patterns its sweep covers, how many
// cases a grad pair keeps.
struct ListContext {
  const std::string& path;
  std::uint64_t lo, hi;
  std::size_t keep;
};

// The '#' lines: the header of head_lines, then one per grad pair, each read into r's pairs.
void read_pair_lines(const std::string& path, const ref::WorstList& list, const std::vector<SweepGrads>& grads, SweepResult& r) {
  const std::size_t want = head_lines + grads.size();
  if (list.header.size() < want)
    refuse(path, list.header_at.back(), fmt::format("{} '#' lines (a header of {}, then one per grad pair)", want, head_lines),
           fmt::format("{}", list.header.size()));
  if (list.header.size() > want)
    refuse(path, list.header_at[want], "the cases of the last grad pair or the end of the list", quoted(list.header[want]));
  for (std::size_t k = 0; k < grads.size(); ++k) {
    const auto p = parse_pair_line(list.header[head_lines + k], grads[k]);
    if (!p)
      refuse(path, list.header_at[head_lines + k],
             fmt::format("'# {} (gc={}, gs={}): N angles, max error E x 2^-24 S, M over float32-bound' (grad pair {} of {})",
                         grads[k].name, ref::hex(grads[k].gc), ref::hex(grads[k].gs), k + 1, grads.size()),
             quoted(list.header[head_lines + k]));
    r.pairs.push_back(*p);
  }
}

// A case's error, its note '# E' (the note without the '#'): E in units of 2^-24 S, finite, at
// least 0, written as the list writes it.
double case_error(const std::string& path, int at, const std::string& note) {
  if (note.size() > 1 && note[0] == ' ') {
    try {
      const double error = ref::parse_float(note.substr(1));
      if (std::isfinite(error) && !(error < 0) && fmt::format(" {}", error) == note) return error;
    } catch (const std::invalid_argument&) {
    }
  }
  refuse(path, at, "'# E' after the case, E its error in units of 2^-24 S (a finite number, at least 0)",
         note.empty() ? std::string("no '#'") : quoted(note));
}

// The case c at line `at`, with its note, added to the worst cases of its grad pair p: p's
// grads, an angle of the range, an error within p's max, after a worse case, at most
// x.keep of them, each angle once (`listed`: p's angles so far).
void add_case(const ListContext& x, int at, const std::vector<double>& c, const std::string& note, SweepPair& p,
              std::set<std::uint64_t>& listed) {
  if (std::bit_cast<std::uint64_t>(c[0]) != std::bit_cast<std::uint64_t>(p.grads.gc) ||
      std::bit_cast<std::uint64_t>(c[1]) != std::bit_cast<std::uint64_t>(p.grads.gs))
    refuse(x.path, at, fmt::format("the grads of pair '{}', gc={} gs={}", p.grads.name, ref::hex(p.grads.gc), ref::hex(p.grads.gs)),
           fmt::format("gc={} gs={}", ref::hex(c[0]), ref::hex(c[1])));
  const float t = static_cast<float>(c[2]);
  const std::uint64_t pattern = pattern_of(t);
  if (pattern < x.lo || pattern >= x.hi)
    refuse(x.path, at, "an angle of " + sweep_range_words(x.lo, x.hi), fmt::format("{} (bit pattern {:#x})", ref::hex(t), pattern));
  const double error = case_error(x.path, at, note);
  // The pair line prints its max to 4 digits; rounding is monotone, so no case's error,
  // rounded so, lies above it.
  if (ref::parse_float(fmt::format("{:.4g}", error)) > p.metrics.max_scaled)
    refuse(x.path, at, fmt::format("an error at most the max error of pair '{}' ({:.4g})", p.grads.name, p.metrics.max_scaled),
           fmt::format("{}", error));
  const ElementReport e{static_cast<std::int64_t>(pattern), {c[0], c[1], t}, 0, 0, error, 0};
  if (!p.worst.empty() && !worse_report(p.worst.back(), e))
    refuse(x.path, at, "cases largest error first (ties: the lowest bit pattern first), each angle once",
           fmt::format("error {} at bit pattern {:#x} after error {} at {:#x}", error, pattern, p.worst.back().scaled_error,
                       p.worst.back().index));
  if (p.worst.size() == x.keep) refuse(x.path, at, fmt::format("at most {} cases for grad pair '{}'", x.keep, p.grads.name), "more");
  if (!listed.insert(pattern).second)
    refuse(x.path, at, fmt::format("each angle once for grad pair '{}'", p.grads.name), fmt::format("bit pattern {:#x} again", pattern));
  p.worst.push_back(e);
}

// The header, checked against the one the list's sweep (out.sweep, read from its other lines)
// would have written; the device and the time read from it into out.
void check_header(const std::string& path, const ref::WorstList& list, SweepWorstList& out) {
  SweepResult& r = out.sweep;
  const std::string& made_by = list.header[0], &device_line = list.header[4];
  const std::size_t semicolon = device_line.rfind("; ");
  bool timed = device_line.starts_with(" device: ") && semicolon != std::string::npos && device_line.ends_with(" s");
  if (timed) {
    try {
      r.seconds = ref::parse_float(device_line.substr(semicolon + 2, device_line.size() - semicolon - 4));
      out.device = device_line.substr(9, semicolon - 9);
    } catch (const std::invalid_argument&) {
      timed = false;
    }
  }
  if (!timed) refuse(path, list.header_at[4], "'# device: NAME; T s'", quoted(device_line));
  if (!made_by.starts_with(" made by: ")) refuse(path, list.header_at[0], "'# made by: COMMAND'", quoted(made_by));
  const std::vector<std::string> expected = sweep_worst_header(made_by.substr(10), r, out.device);
  for (std::size_t h = 0; h < head_lines; ++h)
    if (list.header[h] != expected[h]) refuse(path, list.header_at[h], quoted(expected[h]), quoted(list.header[h]));
}

}  // namespace

SweepWorstList read_sweep_worst(const std::string& path, std::uint64_t lo, std::uint64_t hi,
                                const std::vector<SweepGrads>& grads, std::size_t keep) {
  const ref::WorstList list = read_worst_list(path, 3);
  SweepWorstList out;
  SweepResult& r = out.sweep;
  r.ran = true;
  r.lo = lo;
  r.hi = hi;
  read_pair_lines(path, list, grads, r);
  const ListContext context{path, lo, hi, keep};
  std::vector<std::set<std::uint64_t>> listed(grads.size());  // each pair's angles so far
  for (std::size_t i = 0; i < list.cases.size(); ++i) {
    const int at = list.case_at[i];
    std::size_t k = grads.size();
    while (k > 0 && list.header_at[head_lines + k - 1] > at) --k;
    if (k == 0) refuse(path, at, "a '#' grad pair line before the cases", "a case");
    add_case(context, at, list.cases[i], list.notes[i], r.pairs[k - 1], listed[k - 1]);
  }
  total_of_pairs(r);
  r.complete = std::all_of(r.pairs.begin(), r.pairs.end(), [](const SweepPair& p) { return p.complete; });
  check_header(path, list, out);
  return out;
}

SweepResult join_sweeps(const std::vector<SweepResult>& parts, std::size_t keep) {
  if (parts.empty()) throw std::invalid_argument("join_sweeps: expected parts of a range, found none");
  SweepResult j;
  j.ran = true;
  j.complete = true;
  j.lo = parts.front().lo;
  j.hi = parts.back().hi;
  for (const SweepPair& p : parts.front().pairs) j.pairs.push_back({p.grads, {}, 0, 0, {}, true});
  for (const SweepResult& part : parts) {
    if (part.pairs.size() != j.pairs.size())
      throw std::invalid_argument(fmt::format("join_sweeps: expected {} grad pairs in each part, found {}", j.pairs.size(), part.pairs.size()));
    j.complete = j.complete && part.complete;
    j.seconds = std::max(j.seconds, part.seconds);
    for (std::size_t k = 0; k < j.pairs.size(); ++k) {
      SweepPair& p = j.pairs[k];
      const SweepPair& q = part.pairs[k];
      p.angles += q.angles;
      p.metrics.max_scaled = std::max(p.metrics.max_scaled, q.metrics.max_scaled);
      p.metrics.over[bound] += q.metrics.over[bound];
      p.complete = p.complete && q.complete;
      p.worst.insert(p.worst.end(), q.worst.begin(), q.worst.end());
    }
  }
  for (SweepPair& p : j.pairs) keep_worst_reports(p.worst, keep);
  total_of_pairs(j);
  return j;
}

}  // namespace rope2d::verify
