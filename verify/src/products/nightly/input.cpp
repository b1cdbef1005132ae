// A shard's result and a previous summary read through their schemas (nightly_input.hpp).
#include "products/nightly/nightly_input.hpp"

#include <filesystem>
#include <stdexcept>

#include "codec/input.hpp"
#include "codec/atomic_file.hpp"
#include "codec/json_schema.hpp"

namespace rope2d::verify {

using nlohmann::json;

namespace {

// What the schema's pattern cannot say: a day of the calendar.
void check_shard_date(const json& shard, const std::string& where) {
  if (!valid_run_date(shard["date"].get<std::string>()))
    bad_input(where, "date", "YYYY-MM-DD (a folder's name under --out)", brief(shard["date"]));
}

}  // namespace

void check_shard_result(const json& shard, const std::string& where) {
  check_json(shard, JsonFormat::nightly_shard, where);
  check_shard_date(shard, where);
}

json read_shard_result(const std::string& path) {
  json j = read_json_file(path, JsonFormat::nightly_shard);
  check_shard_date(j, path);
  return j;
}

void check_previous_summary(const json& summary, const std::string& where) { check_json(summary, JsonFormat::nightly_summary, where); }

NightSummary read_previous_summary(const std::string& path) {
  const json j = read_json_file(path, JsonFormat::nightly_summary);
  if (j.contains("date") && !valid_run_date(j["date"].get<std::string>()))
    bad_input(path, "date", "YYYY-MM-DD, a day of the calendar", brief(j["date"]));
  try {
    return night_summary_from_json(j);
  } catch (const std::invalid_argument& e) {  // a disposition that names none: the field and value in e
    throw std::invalid_argument(path + ": " + e.what());
  } catch (const json::exception& e) {  // a field the schema leaves untyped: a gap in the schema, still bad input
    throw std::invalid_argument(path + ": not a summary this program wrote: " + e.what());
  }
}

bool summary_named(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec) || (ec && ec != std::errc::no_such_file_or_directory);
}

bool valid_run_date(const std::string& d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return false;
  const int year = std::stoi(d.substr(0, 4)), month = (d[5] - '0') * 10 + (d[6] - '0'), day = (d[8] - '0') * 10 + (d[9] - '0');
  if (month < 1 || month > 12 || day < 1) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return day <= days[month - 1] + (month == 2 && leap ? 1 : 0);
}

std::string make_night_folder(const std::string& root, const std::string& date, const std::string& label) {
  const std::string dir = (std::filesystem::path(root) / date).string();
  make_output_folder(root, label);
  make_output_folder(dir, label);
  return dir;
}

}  // namespace rope2d::verify
