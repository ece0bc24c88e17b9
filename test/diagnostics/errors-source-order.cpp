// Errors come in source order (issue 16), wherever the generator found
// them: the derivative of `second` is requested first, and found first,
// but the errors in `first`, defined above it, are reported first; within a
// function, by line and column.
//
// RUN: not %clangxx -std=c++17 -fsyntax-only -fno-caret-diagnostics -fplugin=%meshad_plugin -I%I %s 2>&1 | FileCheck %s
#include <meshad/Differentiator.h>

double first(double x) {
  if (x > 0)
    goto done;
  x = x * x;
done:
  return x;
}

double second(double x) {
  if (x > 1)
    goto done;
  x = 2 * x;
done:
  return x;
}

int main() {
  auto D2 = meshad::differentiate(second, "x");
  auto D1 = meshad::differentiate(first, "x");
  (void)D1;
  (void)D2;
}

// CHECK:      errors-source-order.cpp:11:5: error: meshad: 'goto' statement is not supported
// CHECK-NEXT: errors-source-order.cpp:13:1: error: meshad: label is not supported
// CHECK-NEXT: errors-source-order.cpp:19:5: error: meshad: 'goto' statement is not supported
// CHECK-NEXT: errors-source-order.cpp:21:1: error: meshad: label is not supported
// CHECK-NOT: error:
