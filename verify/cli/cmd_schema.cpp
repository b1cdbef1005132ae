// rope2d schema FORMAT FILE...: checks files against the JSON Schema the verifier reads that
// format with (json_schema.hpp), through the same reader: exit 0 when every file passes, 2 at
// the first that does not (naming file, field, expected, found). rope2d schema FORMAT prints the
// schema; rope2d schema --list names the formats. The schema alone: rope2d report, check and
// nightly also check what a schema cannot say (a disposition that follows from the numbers). A
// safetensors header is checked inside its file (rope2d schema safetensors-header x.safetensors),
// with the data it describes.
#include <iostream>

#include "commands.hpp"
#include "codec/json_schema.hpp"
#include "codec/solution_schema.hpp"
#include "rope2d/verify/codec/safetensors.hpp"

namespace rope2d::cli {

namespace {

using namespace rope2d::verify;

struct SchemaArgs {
  std::string format;
  std::vector<std::string> files;
  bool list = false;
};

std::string format_names() {
  std::string out;
  for (JsonFormat f : all_json_formats) out += (out.empty() ? "" : ", ") + std::string(name(f));
  return out;
}

int run(const SchemaArgs& a) {
  if (a.list) {
    for (JsonFormat f : all_json_formats) std::cout << name(f) << "\t" << schema_file(f) << "\n";
    return Exit::ok;
  }
  const auto format = parse_json_format(a.format);
  if (!format) throw std::invalid_argument("schema: expected a format (" + format_names() + "), found '" + a.format.substr(0, 60) + "'");
  if (a.files.empty()) {
    std::cout << schema_text(*format);
    return Exit::ok;
  }
  for (const std::string& f : a.files) {
    if (*format == JsonFormat::solution) {  // its sources filled from beside it, its cross-field rules too
      nlohmann::json sol;
      const std::vector<SchemaProblem> problems = check_solution_file(f, sol);
      for (const SchemaProblem& p : problems) std::cerr << "rope2d: " << p.line(f) << "\n";
      if (!problems.empty()) return Exit::usage;
    } else if (*format == JsonFormat::safetensors_header) {  // the header inside the file, and the data it describes
      read_safetensors(f);
    } else {
      read_json_file(f, *format);  // throws bad input: exit 2 naming file and field
    }
    std::cout << f << ": valid " << name(*format) << " (" << schema_file(*format) << ")\n";
  }
  return Exit::ok;
}

}  // namespace

Action add_schema(CLI::App& app) {
  auto a = std::make_shared<SchemaArgs>();
  app.add_option("format", a->format, "the file's format: " + format_names());
  app.add_option("files", a->files, "files to check (none: print the schema)");
  app.add_flag("--list", a->list, "list the formats and their schema files");
  app.footer("The schemas are installed in <prefix>/share/rope2d/schemas/ (docs/schemas.md).");
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
