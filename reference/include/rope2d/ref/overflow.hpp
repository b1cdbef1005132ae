// Near the top of the float32 range: what a bounded-error float32 evaluation may return when
// the exact result is within its bound of overflowing, and inputs that exercise it.
//
// The last float32 rounding returns ±inf when the unrounded sum reaches 2^128 - 2^103, the
// midpoint above FLT_MAX. An honest kernel's sum is within its error bound of the exact value,
// so it may return inf where the exact result is below that threshold, and FLT_MAX where the
// exact result is above it, by at most the bound.
#pragma once

#include "rope2d/ref/backward.hpp"
#include "rope2d/ref/random.hpp"

namespace rope2d::ref {

// 2^128 - 2^103: the smallest magnitude that rounds to infinity in float32.
inline constexpr double float32_overflow_threshold = 0x1.ffffffp+127;

// The exact result in double (finite inputs; relative error below 2^-50 of S; never overflows,
// as |result| <= 2 FLT_MAX).
double unrounded_value(const Element& e);

// The distance from the exact result to the nearest value a float32 evaluation could have had
// before its last rounding to return `got`, when `got` or the correctly rounded result is
// infinite: 0 for an infinity of the right sign past the threshold, the gap to the threshold
// below it, |got - exact| for a finite got; infinity for an infinity of the wrong sign or NaN.
double overflow_error(float got, double exact);

// Grads near the top of the float32 range: one or both within a few binades of FLT_MAX
// (FLT_MAX itself, 2^127, random significands), angles from tiny to ordinary, so the exact
// result falls just below, at and just above the overflow threshold. gc and gs are exact
// values of grad_dtype (for fp16, whose top is 65504, the grads are its largest values and
// the results stay far from float32 overflow).
Element near_overflow(Random& rng, Dtype grad_dtype);

}  // namespace rope2d::ref
