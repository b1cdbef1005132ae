// A result's disposition: passed, incorrect (accuracy or integrity), failed (did not build,
// load or run), not supported (the submission does not offer it) or skipped (no GPU to run
// on). One enum for set results, a report's verdict, worker messages, JUnit and the nightly;
// name() gives the text every report writes (the codec reads it back: codec/names.hpp).
#pragma once

#include <string_view>

namespace rope2d::verify {

enum class Disposition { passed, incorrect, failed, not_supported, skipped };

inline constexpr Disposition all_dispositions[] = {Disposition::passed, Disposition::incorrect, Disposition::failed,
                                                   Disposition::not_supported, Disposition::skipped};

// "passed", "incorrect", "failed", "not supported", "skipped".
std::string_view name(Disposition d);

}  // namespace rope2d::verify
