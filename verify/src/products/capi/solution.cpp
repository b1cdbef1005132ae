// The C ABI's solution.json check: the one reader of solution_schema.hpp, so the Python
// package (rope2d.solution_schema) applies exactly the rules `rope2d verify` applies.
#include <nlohmann/json.hpp>

#include "products/capi/common.hpp"
#include "codec/input.hpp"
#include "rope2d/verify/products/capi.h"
#include "codec/solution_schema.hpp"

using namespace rope2d;
using namespace rope2d::verify;
using namespace rope2d::verify::capi;

namespace {

char* problems_json(const std::vector<SchemaProblem>& problems, const std::string& file) {
  nlohmann::json out = nlohmann::json::array();
  for (const SchemaProblem& p : problems)
    out.push_back({{"field", p.field}, {"expected", p.expected}, {"found", p.found}, {"ours", p.ours}, {"line", p.line(file)}});
  return dup(out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

extern "C" {

const char* rope2d_solution_schema(void) { return solution_schema_text().c_str(); }

int rope2d_solution_check_file(const char* path, char** json) {
  return guarded([&] {
    if (!path || !json) throw std::invalid_argument("path, json: null pointer");
    nlohmann::json sol;
    *json = problems_json(check_solution_file(path, sol), path);
  });
}

int rope2d_solution_check_text(const char* text, const char* base_dir, char** json) {
  return guarded([&] {
    if (!text || !json) throw std::invalid_argument("text, json: null pointer");
    nlohmann::json sol = verify::parse_json(text, "solution");
    *json = problems_json(solution_problems(sol, base_dir ? base_dir : ""), "solution");
  });
}

}  // extern "C"
