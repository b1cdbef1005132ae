// Parsing and writing worst-case lists (see worst_list.hpp).
#include "rope2d/ref/worst_list.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "rope2d/ref/floats.hpp"

namespace rope2d::ref {

namespace {

// A C99 hex float: optional sign, then 0x (or inf/nan, which lists never need, are refused).
bool looks_hex(const std::string& w) {
  const std::size_t i = (w[0] == '-' || w[0] == '+') ? 1 : 0;
  return w.size() > i + 2 && w[i] == '0' && (w[i + 1] == 'x' || w[i + 1] == 'X');
}

}  // namespace

WorstList parse_worst_list(std::string_view text, const std::string& where, int fields) {
  std::istringstream in{std::string(text)};
  WorstList list;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const std::string at = where + ":" + std::to_string(lineno) + ": ";
    if (!line.empty() && line[0] == '#') {
      list.header.push_back(line.substr(1));
      list.header_at.push_back(lineno);
      continue;
    }
    const std::size_t hash = line.find('#');
    std::istringstream words(line.substr(0, hash));
    std::vector<double> values;
    for (std::string w; words >> w;) {
      // Echoed as text, never whole: a byte that is not printable ASCII shown as '?'.
      std::string shown = w.size() > 60 ? w.substr(0, 60) + "..." : w;
      for (char& c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
      if (!looks_hex(w)) throw std::invalid_argument(at + "expected a C99 hex float, found '" + shown + "'");
      // strtod reads 0x1p-99999 as 0 and 0x1p99999 as inf, saying so only through errno.
      errno = 0;
      char* end = nullptr;
      const double x = std::strtod(w.c_str(), &end);
      if (end != w.c_str() + w.size()) throw std::invalid_argument(at + "expected a C99 hex float, found '" + shown + "'");
      if (errno == ERANGE || !std::isfinite(x))
        throw std::invalid_argument(at + "expected a hex float in the range of double, found '" + shown + "'");
      values.push_back(x);
    }
    if (values.empty()) continue;
    if (static_cast<int>(values.size()) != fields)
      throw std::invalid_argument(at + "expected " + std::to_string(fields) + " hex floats, found " +
                                  std::to_string(values.size()));
    // The angle (the last field) is a float32 by the problem's definition.
    const double t = values.back();
    if (static_cast<double>(static_cast<float>(t)) != t)
      throw std::invalid_argument(at + "expected a float32 angle, found " + hex(t));
    list.cases.push_back(std::move(values));
    list.notes.push_back(hash == std::string::npos ? std::string() : line.substr(hash + 1));
    list.case_at.push_back(lineno);
  }
  if (list.header.empty()) throw std::invalid_argument(where + ":1: expected a '#' header saying how the list was made, found none");
  return list;
}

std::vector<Element> worst_elements(const WorstList& list) {
  std::vector<Element> out;
  for (const auto& c : list.cases) {
    const float t = static_cast<float>(c.back());
    if (c.size() == 3) {
      out.push_back({c[0], c[1], t});
    } else {
      out.push_back({1.0, 1.0, t});
      out.push_back({-1.0, 0.5, t});
      out.push_back({0.75, -2.0, t});
    }
  }
  return out;
}

std::string format_worst_list(const std::vector<std::string>& header, const std::vector<std::vector<double>>& cases,
                              const std::vector<bool>& as_float, const std::vector<std::string>& notes) {
  std::string s;
  for (const auto& h : header) {
    s += '#';
    s += h;
    s += '\n';
  }
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto& c = cases[k];
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (i) s += ' ';
      s += i < as_float.size() && as_float[i] ? hex(static_cast<float>(c[i])) : hex(c[i]);
    }
    if (k < notes.size() && !notes[k].empty()) {
      s += " #";
      s += notes[k];
    }
    s += '\n';
  }
  return s;
}

}  // namespace rope2d::ref
