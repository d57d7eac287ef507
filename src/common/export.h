// Visibility of internal C++ entry points that one of our shared libraries offers the others.
// Everything else is hidden (-fvisibility=hidden), so each exported name lives in one library.
#pragma once

#define ACLHOST_EXPORT __attribute__((visibility("default")))
