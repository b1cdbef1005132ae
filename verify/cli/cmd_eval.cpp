// rope2d eval GC GS THETA [--grad-dtype bf16|fp16|fp32]: the exact backward of one element.
#include <nlohmann/json.hpp>

#include <mpfr.h>

#include <cmath>
#include <iostream>

#include "commands.hpp"
#include "rope2d/ref/backward.hpp"
#include "rope2d/ref/floats.hpp"
#include "rope2d/ref/overflow.hpp"
#include "rope2d/verify/model/flush.hpp"
#include "rope2d/verify/model/tolerance.hpp"

namespace rope2d::cli {

namespace {

struct EvalArgs {
  std::string gc, gs, theta, dtype = "bf16";
};

// Exactness is decided on the text, not on a double it was rounded to: MPFR reads it at 64
// bits, and only a value it reads exactly and that equals the double strtod gave is the
// number written (1e-400 and 1.00000000000000000001 are not; strtod rounds both).
bool text_is_double(const std::string& text, double x) {
  if (std::isnan(x) || std::isinf(x)) return true;
  mpfr_t v;
  mpfr_init2(v, 64);
  char* end = nullptr;
  const int ternary = mpfr_strtofr(v, text.c_str(), &end, 0, MPFR_RNDN);
  const bool exact = ternary == 0 && end && *end == '\0' && mpfr_cmp_d(v, x) == 0;
  mpfr_clear(v);
  return exact;
}

double exact_input(const std::string& field, const std::string& text, ref::Dtype d) {
  double x;
  try {
    x = ref::parse_float(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(field + ": " + e.what());
  }
  if (!text_is_double(text, x) || !ref::representable(d, x))
    throw std::invalid_argument(field + ": " + text.substr(0, 80) + " is not exactly representable in " + std::string(ref::name(d)) +
                                " (nearest: " + ref::hex(ref::round_to(d, x)) + ")");
  return x;
}

// What each tier accepts for this element, from the same functions the verifier judges with:
// the allowance around the IEEE result, around each flushed problem's result (subnormal
// values taken as zero), and whether an infinity is acceptable near overflow.
nlohmann::ordered_json allowances(const ref::Element& e, float ref, double scale) {
  const auto alts = verify::flushed_problems(e);
  nlohmann::ordered_json j;
  for (verify::Tier t : verify::all_tiers) {
    nlohmann::ordered_json x;
    x["ieee"] = verify::judged_allowance(t, e, ref, scale);
    if (!alts.empty()) {
      nlohmann::ordered_json fl = nlohmann::json::array();
      for (const auto& a : alts)
        fl.push_back({{"flushed", verify::flush_mask_name(a.mask)}, {"fp32", ref::hex(a.ref)},
                      {"allowance", verify::judged_allowance(t, a.e, a.ref, a.scale)}});
      x["flush_to_zero"] = fl;
    }
    const bool finite = std::isfinite(e.gc) && std::isfinite(e.gs) && std::isfinite(e.t);
    if (finite && std::isfinite(ref)) {
      const double exact = ref::unrounded_value(e);
      x["accepts_inf"] = verify::within(t, e, ref, scale, std::copysign(INFINITY, static_cast<float>(exact)));
    }
    j[std::string(verify::name(t))] = x;
  }
  return j;
}

int run(const EvalArgs& a) {
  const auto dtype = ref::parse_dtype(a.dtype);
  if (!dtype) throw std::invalid_argument("--grad-dtype: expected " + ref::grad_dtype_names() + ", found '" + a.dtype + "'");
  const ref::Element e{exact_input("GC", a.gc, *dtype), exact_input("GS", a.gs, *dtype),
                       static_cast<float>(exact_input("THETA", a.theta, ref::Dtype::fp32))};
  const ref::Rounded r = ref::exact_backward(e);
  const double scale = ref::condition_scale(e);
  nlohmann::ordered_json j;
  j["grad_dtype"] = ref::name(*dtype);
  j["grad_cos"] = ref::hex(e.gc);
  j["grad_sin"] = ref::hex(e.gs);
  j["idx_theta"] = ref::hex(e.t);
  j["exact"] = ref::exact_decimal(e, 40);
  j["fp32"] = ref::hex(r.fp32);
  j["bf16"] = ref::hex(r.bf16);
  j["fp16"] = ref::hex(r.fp16);
  j["scale"] = scale;
  j["allowance"] = allowances(e, static_cast<float>(r.fp32), scale);
  std::cout << j.dump(2) << "\n";
  return Exit::ok;
}

}  // namespace

Action add_eval(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  app.add_option("GC", a->gc, "grad_cos (decimal or C99 hex float, exact in the grad dtype)")->required();
  app.add_option("GS", a->gs, "grad_sin")->required();
  app.add_option("THETA", a->theta, "idx_theta (exact float32)")->required();
  app.add_option("--grad-dtype", a->dtype, ref::grad_dtype_names())->capture_default_str();
  return [a] { return run(*a); };
}

}  // namespace rope2d::cli
