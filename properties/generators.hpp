// RapidCheck generators of the domain, in one place: grads over the bit patterns of their
// dtype, angles by regime (bit patterns, randn-sized, real layouts, nearest to k*pi/2,
// cancelling pairs, special values), built from the constructive pieces of ref/regimes.hpp.
// Each case carries its regime's name for RC_TAG, so the log shows coverage.
#pragma once

#include <rapidcheck.h>

#include <bit>
#include <cmath>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rope2d/ref/backward.hpp"
#include "rope2d/ref/floats.hpp"
#include "rope2d/ref/layout.hpp"
#include "rope2d/ref/regimes.hpp"

namespace rope2d::ref {

// How RapidCheck prints an element in a counterexample: hex floats, exact.
inline void showValue(const Element& e, std::ostream& os) {
  os << "gc=" << hex(e.gc) << " gs=" << hex(e.gs) << " t=" << hex(e.t);
}

}  // namespace rope2d::ref

namespace rope2d::gen {

using ref::Dtype;
using ref::Element;

inline rc::Gen<Dtype> dtype() { return rc::gen::elementOf(std::vector<Dtype>(std::begin(ref::all_dtypes), std::end(ref::all_dtypes))); }

// Any finite value of the dtype, drawn over its bit patterns (so every binade, subnormals and
// signed zeros are as likely as any other pattern).
inline rc::Gen<double> finite_bits(Dtype d) {
  switch (d) {  // no default: a new dtype must say how its bit patterns are drawn
    case Dtype::fp32:
      return rc::gen::map(rc::gen::suchThat(rc::gen::arbitrary<std::uint32_t>(),
                                            [](std::uint32_t b) { return std::isfinite(std::bit_cast<float>(b)); }),
                          [](std::uint32_t b) { return static_cast<double>(std::bit_cast<float>(b)); });
    case Dtype::bf16:
    case Dtype::fp16:
      return rc::gen::map(rc::gen::suchThat(rc::gen::arbitrary<std::uint16_t>(),
                                            [d](std::uint16_t b) { return std::isfinite(ref::decode16(d, b)); }),
                          [d](std::uint16_t b) { return ref::decode16(d, b); });
  }
  throw std::logic_error("finite_bits: not a dtype");
}

// Gradient-sized values of the dtype: |x| up to about 8 with 20 bits of choice, rounded.
inline rc::Gen<double> moderate(Dtype d) {
  return rc::gen::map(rc::gen::inRange(-(1 << 23), 1 << 23),
                      [d](int m) { return ref::round_to(d, std::ldexp(static_cast<double>(m), -20)); });
}

inline rc::Gen<double> grad(Dtype d) { return rc::gen::weightedOneOf<double>({{3, moderate(d)}, {1, finite_bits(d)}}); }

inline rc::Gen<float> angle_bits() {
  return rc::gen::map(rc::gen::suchThat(rc::gen::arbitrary<std::uint32_t>(),
                                        [](std::uint32_t b) { return std::isfinite(std::bit_cast<float>(b)); }),
                      [](std::uint32_t b) { return std::bit_cast<float>(b); });
}

inline rc::Gen<float> angle_small() {  // randn-sized: |t| < 8
  return rc::gen::map(rc::gen::inRange(-(1 << 24), 1 << 24), [](int m) { return std::ldexp(static_cast<float>(m), -21); });
}

inline rc::Gen<float> angle_layout() {  // fl32(pos * theta[k]) of a real layout
  return rc::gen::apply(
      [](int pos, int k) {
        static const std::vector<float> theta = ref::theta_table({});
        return static_cast<float>(pos) * theta[k];
      },
      rc::gen::inRange(0, 196608), rc::gen::inRange(0, 64));
}

inline rc::Gen<float> angle_near_axis() {  // nearest float to k*pi/2, or a step off it
  return rc::gen::apply(
      [](int k, int step, bool negative) { return ref::near_axis_angle(k, step, negative); },
      rc::gen::inRange(1, 1 << 20), rc::gen::inRange(-2, 3), rc::gen::arbitrary<bool>());
}

struct Case {
  std::string regime;
  Dtype dtype;
  Element e;
};

inline void showValue(const Case& c, std::ostream& os) {
  os << c.regime << " " << ref::name(c.dtype) << " ";
  ref::showValue(c.e, os);
}

inline rc::Gen<Case> with_angle(const char* regime, rc::Gen<float> angles) {
  return rc::gen::mapcat(dtype(), [regime, angles](Dtype d) {
    return rc::gen::apply([regime, d](double gc, double gs, float t) { return Case{regime, d, {gc, gs, t}}; }, grad(d),
                          grad(d), angles);
  });
}

// gs = gc tan t rounded to the dtype: the two terms nearly cancel.
inline rc::Gen<Case> cancelling() {
  return rc::gen::mapcat(dtype(), [](Dtype d) {
    return rc::gen::apply(
        [d](double gc, float t) {
          const double gs = ref::cancelling_gs(d, gc, t);
          return Case{"cancellation", d, {gc, gs, t}};
        },
        moderate(d), rc::gen::oneOf(angle_small(), angle_layout()));
  });
}

// A special grad of the dtype (ordinary ones drawn as grad()) against a special angle: the
// same lists the verifier crosses exhaustively. May be non-finite.
inline rc::Gen<double> special_grad(Dtype d) {
  return rc::gen::mapcat(rc::gen::elementOf(ref::special_grads(d)), [d](ref::SpecialGrad g) {
    return g.ordinary ? grad(d) : rc::gen::just(g.value);
  });
}

inline rc::Gen<Case> special_case() {
  return rc::gen::mapcat(dtype(), [](Dtype d) {
    return rc::gen::apply([d](double gc, double gs, float t) { return Case{"special", d, {gc, gs, t}}; }, special_grad(d),
                          special_grad(d), rc::gen::elementOf(ref::special_angles()));
  });
}

// Finite inputs from every regime.
inline rc::Gen<Case> finite_case() {
  return rc::gen::weightedOneOf<Case>({{2, with_angle("small", angle_small())},
                                       {2, with_angle("layout", angle_layout())},
                                       {2, with_angle("near_axis", angle_near_axis())},
                                       {1, with_angle("bits", angle_bits())},
                                       {2, cancelling()}});
}

}  // namespace rope2d::gen
