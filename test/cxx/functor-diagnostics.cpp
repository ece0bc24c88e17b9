// What stays unsupported of calls of operator() (issue 15, item 3) is an
// error at the call (or at the lambda) that says what to write instead.
//
// RUN: %clangxx -std=c++17 -fsyntax-only -ferror-limit=0 -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <cmath>
#include <meshad/Differentiator.h>

struct Base {
  virtual double operator()(double x) const { return x * x; }
};
double virtualCall(double x, const Base &b) {
  return b(x); // expected-error {{calls of a virtual operator() are not supported; make 'Base::operator()' non-virtual}}
}

struct Counter {
  double n;
  double operator()(double x) { return x * n; }
};
double nonConst(double x) {
  Counter c{2.0};
  return c(x); // expected-error {{operator() of 'Counter' is not const (a functor that updates its own members is not supported); make it const and return what it computes}}
}

struct Cached {
  mutable double last;
  double operator()(double x) const { return x * last; }
};
double mutableMember(double x) {
  Cached c{1.0};
  return c(x); // expected-error {{the functor 'Cached' has the mutable member 'last', which operator() may update; remove 'mutable'}}
}

double localClass(double x) {
  struct Local { // expected-error {{local type definitions are not supported}}
    double operator()(double t) const { return t * t; }
  };
  return Local{}(x); // expected-error {{the functor 'Local' is declared inside a function or class; declare it at namespace scope}}
}

struct Scale {
  double s;
  double operator()(double x) const { return s * x; }
};
double activeMembers(double x, double y) {
  Scale f;
  f.s = y * y;
  return f(x); // expected-error {{cannot differentiate the call of the functor 'Scale': its members carry derivatives (values computed from the inputs), and meshad does not differentiate through a functor's members yet; pass those values as arguments of operator(), or call a lambda that captures them}}
}

double changedCapture(double x) {
  double a = x;
  auto f = [=](double t) { return a * t; }; // expected-error {{the lambda 'f' captures 'a' by copy, and the code after it may change 'a'; copy the value into a const local and capture that}}
  a = 2 * x;
  return f(x) + a;
}

double writesCapture(double x) {
  double acc = 0;
  auto add = [&](double t) {
    acc += t;
    return acc;
  };
  return add(x); // expected-error {{the lambda writes 'acc', which it captures; return the value and assign it at the call}}
}

double initCapture(double x) {
  auto f = [k = 2 * x](double t) { return k * t; };
  return f(x); // expected-error {{init-captures ([y = ...]) are not supported; declare a local and capture it}}
}

double mutableLambda(double x) {
  double a = x;
  auto f = [=](double t) mutable { return a * t; };
  return f(x); // expected-error {{a mutable lambda (one that updates its own copies) is not supported; drop 'mutable' and return what it computes}}
}

template <class F> double apply(F f, double x) { return f(x); }
double passedOn(double x) {
  auto f = [](double t) { return t * t; };
  return apply(f, x); // expected-error {{the lambda 'f' can only be called here (f(x)); passing it on is not supported}}
}

int main() {
  meshad::gradient(virtualCall, "x");
  meshad::gradient(nonConst, "x");
  meshad::gradient(mutableMember, "x");
  meshad::differentiate(localClass, "x");
  meshad::gradient(activeMembers, "x, y");
  meshad::gradient(changedCapture, "x");
  meshad::gradient(writesCapture, "x");
  meshad::gradient(initCapture, "x");
  meshad::gradient(mutableLambda, "x");
  meshad::gradient(passedOn, "x");
}
