// Reverse mode of function templates instantiated with float and double:
// each instantiation gets its own gradient, a template calls a template,
// and a template over an array length.
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

template <int N> double norm2(const double *v) {
  double s = 0;
  for (int i = 0; i < N; ++i)
    s += v[i] * v[i] * (i + 1);
  return std::sqrt(s);
}

// CHECK-DAG: void smoothStep_grad(double x, double w, double *_d_x, double *_d_w) {
// CHECK-DAG: void smoothStep_grad(float x, float w, float *_d_x, float *_d_w) {
// CHECK-DAG: void outer_grad(double x, double w, double *_d_x, double *_d_w) {
// CHECK-DAG: void norm2_grad(const double *v, double *_d_v) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto gd = meshad::gradient(smoothStep<double>, "x, w");
  auto gf = meshad::gradient(smoothStep<float>, "x, w");
  auto go = meshad::gradient(outer<double>, "x, w");
  auto gn = meshad::gradient(norm2<4>, "v");
  for (int I = 0; I < 20; ++I) {
    // t = x / w in (0.025, 0.3): far from t = 1, where the float d/dx
    // cancels, and d/dw stays far from zero.
    double X = Rng.uniform(0.05, 0.3), W = Rng.uniform(1, 2);
    double DX = 0, DW = 0;
    gd.execute(X, W, &DX, &DW);
    MESHAD_CHECK_CLOSE("d smoothStep<double>/dx", DX,
        centralDifference([&](double V) { return smoothStep<double>(V, W); }, X));
    MESHAD_CHECK_CLOSE("d smoothStep<double>/dw", DW,
        centralDifference([&](double V) { return smoothStep<double>(X, V); }, W));

    float FX = static_cast<float>(X), FW = static_cast<float>(W);
    float FDX = 0, FDW = 0;
    gf.execute(FX, FW, &FDX, &FDW);
    MESHAD_CHECK_CLOSE("d smoothStep<float>/dx", FDX,
        centralDifference([&](double V) { return smoothStep<double>(V, FW); }, FX));
    MESHAD_CHECK_CLOSE("d smoothStep<float>/dw", FDW,
        centralDifference([&](double V) { return smoothStep<double>(FX, V); }, FW));

    DX = 0, DW = 0;
    go.execute(X, W, &DX, &DW);
    MESHAD_CHECK_CLOSE("d outer/dx", DX,
        centralDifference([&](double V) { return outer<double>(V, W); }, X));
    MESHAD_CHECK_CLOSE("d outer/dw", DW,
        centralDifference([&](double V) { return outer<double>(X, V); }, W));

    double Vec[4], DV[4] = {};
    Rng.fill(Vec, 4, 0.2, 1);
    gn.execute(Vec, DV);
    for (int K = 0; K < 4; ++K)
      MESHAD_CHECK_CLOSE("d norm2<4>/dv[k]", DV[K],
          meshad::test::centralDifferenceAt([&] { return norm2<4>(Vec); }, Vec, K));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 200 passed, 0 failed
