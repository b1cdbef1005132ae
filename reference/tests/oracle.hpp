// The tests' independent oracle lives with the reference (rope2d/testing/oracle.hpp), shared
// with the properties; this name is kept for the tests that include it.
#pragma once

#include "rope2d/testing/oracle.hpp"
