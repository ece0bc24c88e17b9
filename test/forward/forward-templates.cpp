// Forward mode of function templates instantiated with float and double:
// each instantiation gets its own (overloaded) derivative.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

template <class T> T smoothStep(T x, T w) {
  T t = x / w;
  return t * t * (T(3) - T(2) * t) + std::sqrt(w);
}

template <class T> T outer(T x, T w) { return smoothStep(x * x, w) * w; }

// CHECK-DAG: double smoothStep_darg0(double x, double w) {
// CHECK-DAG: float smoothStep_darg0(float x, float w) {
// CHECK-DAG: double outer_darg1(double x, double w) {
// CHECK-DAG: smoothStep_pushforward_1(double x, double w, double _d_w)

int main() {
  meshad::test::RandomInputs Rng;
  auto dd = meshad::differentiate(smoothStep<double>, "x");
  auto df = meshad::differentiate(smoothStep<float>, "x");
  auto dw = meshad::differentiate(outer<double>, "w");
  for (int I = 0; I < 20; ++I) {
    double X = Rng.uniform(-1, 1), W = Rng.uniform(0.5, 2);
    double Ref = meshad::test::centralDifference(
        [&](double V) { return smoothStep<double>(V, W); }, X);
    MESHAD_CHECK_CLOSE("d smoothStep<double>/dx", dd.execute(X, W), Ref);
    MESHAD_CHECK_CLOSE("d smoothStep<float>/dx",
                       df.execute(static_cast<float>(X), static_cast<float>(W)),
                       meshad::test::centralDifference(
                           [&](double V) {
                             return smoothStep<double>(V, static_cast<float>(W));
                           },
                           static_cast<float>(X)));
    MESHAD_CHECK_CLOSE("d outer/dw", dw.execute(X, W),
        meshad::test::centralDifference([&](double V) { return outer<double>(X, V); }, W));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 60 passed, 0 failed
