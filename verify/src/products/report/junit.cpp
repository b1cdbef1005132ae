// JUnit XML: suites of test cases, each passed, failed (<failure>), in error (<error>) or
// skipped (<skipped>); a verifier report is one suite with a test case per set, the element's
// type its SOL-ExecBench status (status.hpp).
#include <fmt/format.h>

#include "rope2d/verify/model/mismatch.hpp"
#include "rope2d/verify/products/report_files.hpp"
#include "xml.hpp"

namespace rope2d::verify {

namespace {

const char* element(Outcome o) {
  switch (o) {
    case Outcome::failure: return "failure";
    case Outcome::error: return "error";
    case Outcome::skipped: return "skipped";
    case Outcome::passed: break;
  }
  return nullptr;
}

struct Counts {
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  bool timed = false;
  void add(const JUnitCase& c) {
    ++tests;
    failures += c.outcome == Outcome::failure;
    errors += c.outcome == Outcome::error;
    skipped += c.outcome == Outcome::skipped;
    if (c.seconds >= 0) seconds += c.seconds, timed = true;
  }
  void set(pugi::xml_node n) const {
    n.append_attribute("tests").set_value(std::to_string(tests).c_str());
    n.append_attribute("failures").set_value(std::to_string(failures).c_str());
    n.append_attribute("errors").set_value(std::to_string(errors).c_str());
    n.append_attribute("skipped").set_value(std::to_string(skipped).c_str());
    if (timed) n.append_attribute("time").set_value(fmt::format("{:.3f}", seconds).c_str());
  }
};

Counts add_suite(pugi::xml_node parent, const JUnitSuite& s) {
  pugi::xml_node n = xml::add(parent, "testsuite", {{"name", s.name}});
  Counts counts;
  for (const auto& c : s.cases) counts.add(c);
  counts.set(n);
  for (const auto& c : s.cases) {
    pugi::xml_node t = xml::add(n, "testcase", {{"classname", c.classname}, {"name", c.name}});
    if (c.seconds >= 0) t.append_attribute("time").set_value(fmt::format("{:.3f}", c.seconds).c_str());
    if (const char* e = element(c.outcome)) {
      pugi::xml_node f = xml::add(t, e, {}, c.detail);
      if (!c.type.empty()) f.prepend_attribute("type").set_value(xml::xml_safe(c.type).c_str());
      if (!c.message.empty() || c.outcome != Outcome::skipped)
        f.prepend_attribute("message").set_value(xml::xml_safe(c.message).c_str());
    }
  }
  return counts;
}

}  // namespace

std::string render_junit(std::span<const JUnitSuite> suites) {
  pugi::xml_document doc;
  if (suites.size() == 1) {
    add_suite(doc, suites[0]);
  } else {
    pugi::xml_node root = doc.append_child("testsuites");
    Counts total;
    for (const auto& s : suites)
      for (const auto& c : s.cases) total.add(c);
    total.set(root);
    for (const auto& s : suites) add_suite(root, s);
  }
  return xml::to_string(doc);
}

JUnitSuite junit_suite(const Report& r) {
  JUnitSuite suite{r.title, {}};
  for (const auto& s : r.results) {
    JUnitCase c{"rope2d." + s.set, s.name};
    const Cause cause = s.cause(r.gate);
    // The element's type: SOL-ExecBench's status of the set (status.hpp), as in trace.jsonl.
    if (const auto st = sxb_status(cause)) c.type = name(*st);
    if (!s.supported()) {
      c.outcome = Outcome::skipped;
      c.message = s.not_supported;
    } else if (cause == Cause::no_gpu) {  // nothing judged: neither a pass nor a failure of the kernel
      c.outcome = Outcome::skipped;
      c.message = s.error;
    } else if (s.beyond_definition && !s.passed(r.gate)) {  // reported, never a failure of the run
      c.outcome = Outcome::skipped;
      c.message = "beyond the definition: " + std::string(name(s.disposition(r.gate))) + (s.ran() ? "" : ": " + s.error);
    } else if (!s.ran()) {
      c.outcome = Outcome::error;
      c.message = s.error;
    } else if (!s.passed(r.gate)) {
      c.outcome = Outcome::failure;
      c.message = !s.integrity.empty() && s.integrity != "ok"
                      ? s.integrity
                      : fmt::format("{} of {} elements over {}", s.metrics.over[static_cast<int>(r.gate)], s.metrics.count, name(r.gate));
      if (!s.metrics.passes(r.gate))
        for (const std::string& l : mismatch_lines(s.metrics, r.gate, s.shape)) c.detail += l + "\n";
      if (s.metrics.poisoned) c.detail += fmt::format("{} outputs never written\n", s.metrics.poisoned);
      if (s.metrics.nonfinite_mismatch) c.detail += fmt::format("{} NaN/Inf mismatches\n", s.metrics.nonfinite_mismatch);
      if (s.metrics.all_zero) c.detail += "all outputs zero\n";
      for (const auto& f : s.metrics.failures) c.detail += f.line(s.name) + "\n";
      if (!s.reproduce.empty()) c.detail += "reproduce: " + s.reproduce + "\n";
    }
    suite.cases.push_back(std::move(c));
  }
  return suite;
}

std::string render_junit(const Report& r) {
  const JUnitSuite s = junit_suite(r);
  return render_junit(std::span<const JUnitSuite>(&s, 1));
}

}  // namespace rope2d::verify
