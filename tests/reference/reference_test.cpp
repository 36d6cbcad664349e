#include <gtest/gtest.h>
#include "reference/reference.hpp"
TEST(reference, placeholder_compiles) { SUCCEED(); }
