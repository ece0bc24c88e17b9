// What stays unsupported of issue 13's C++ is an error at the construct that
// names it in the user's words and says what to write instead.
//
// RUN: %clangxx -std=c++17 -fsyntax-only -ferror-limit=0 -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <meshad/Differentiator.h>

double unsequenced(double x, double *a, int i) {
  a[i] = i++; // expected-error {{'i' is modified inside an expression that also reads or writes it elsewhere; write the update as a separate statement}}
  return a[0] * x;
}

double breakInCase(double x, int m) {
  switch (m) {
  case 0:
    if (x > 0)
      break; // expected-error {{a 'break' that leaves a 'switch' before the end of its case is not supported; use if/else inside the case}}
    x *= 2;
    break;
  }
  return x;
}

double continueInDo(double x, int n) {
  do {
    if (x > 1)
      continue; // expected-error {{'continue' in a do-while loop whose condition has side effects}}
    x *= 1.5;
  } while (n-- > 0);
  return x;
}

double continueWithComma(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i, s += x)
    if (i == 1)
      continue; // expected-error {{'continue' in a for loop whose increment calls a function or has a comma operator is not supported}}
  return s;
}

struct Pair {
  double a[2];
};
double overMember(Pair p, double x) {
  double s = 0;
  for (double v : p.a) // expected-error {{a range-based for loop is supported over an array of known size ('T a[N]') only; write an indexed loop}}
    s += v * x;
  return s;
}

double crossCase(double x, int m) {
  switch (m) {
  case 0:
    double t;
    t = x * x;
    return t;
  default:
    t = x; // expected-error {{'t' is declared in another case of this 'switch'; declare it before the 'switch'}}
    return t * 2;
  }
}

double caseRange(double x, int m) {
  switch (m) {
  case 1 ... 3: // expected-error {{case ranges ('case a ... b') are not supported; list the values}}
    return x;
  default:
    return 2 * x;
  }
}

double lambda(double x) {
  // Calling a lambda is supported (functors.cpp); copying or passing it on
  // is not.
  auto sq = [](double v) { return v * v; };
  auto copy = sq; // expected-error {{the lambda 'sq' can only be called here (sq(x)); passing it on is not supported}}
  return x;
}

double reinterpret(double x, const double *a) {
  const long *bits = reinterpret_cast<const long *>(a); // expected-error {{'reinterpret_cast' is not supported; keep one type per array}}
  return x * bits[0];
}

double cStyleCast(double x, const double *a) {
  const float *f = (const float *)a; // expected-error {{the cast from 'const double *' to 'const float *' is not supported}}
  return x * f[0];
}

double printed(double x) {
  int n = printf("%g\n", x); // expected-error {{'printf' can be left out of a derivative only as a statement of its own whose arguments have no side effects}}
  return n * x;
}

// Non-const references and heap buffers (issue 13) that stay unsupported.
double derefRef(double x, double *p) {
  double &r = *p; // expected-error {{reference 'r' must name a variable, an array element or a vector component; take a copy (double r = ...) and store it back}}
  r *= x;
  return r;
}

double movedPointer(double x, double *p, int n) {
  double &r = p[1]; // expected-error {{reference 'r' names an element of pointer 'p', which the code after it moves; index the element where it is used}}
  p += n;
  r *= x;
  return r * p[0];
}

double ownRef(double &x) { // expected-error {{parameter 'x' of 'ownRef' is a non-const reference; a function that is differentiated takes a pointer (its callees may take references)}}
  return x * x;
}

// meshad::hvp: the callee's callee writes a reference and the callee then
// updates it (a recording primal, whose undo log has no tangent yet).
void bump(double &a, double v) { a += v * v; } // expected-error {{meshad::hvp through a callee that passes memory it was given (a pointer or reference parameter) on to another callee that writes it is not supported yet}}
void bumpThenScale(double &a, double v) {
  bump(a, v);
  a *= v;
}
double nestedWrites(double x) {
  double s = x;
  bumpThenScale(s, x);
  return s;
}

double dynamicNew(double x, int n) {
  double r = 0;
  for (int i = 0; i < n; ++i) {
    double *t = new double[n]; // expected-error {{a heap buffer of a size known only at run time allocated in a loop must be released in the iteration that allocates it: write 'delete[] t;' (or 'free(t)') later in the same block, with no break, continue or return between (or allocate the buffer once before the loop)}}
    t[0] = x;
    if (t[0] > 2)
      break;
    r += t[0] * x;
    delete[] t;
  }
  return r;
}

double dynamicMalloc(double x, int n) {
  double *t = (double *)malloc(n * 3); // expected-error {{'malloc' of this size is not supported: write malloc(n * sizeof(T)) or calloc(n, sizeof(T)) (a constant n of at most 16384 elements becomes a local array, a run-time n stays on the heap)}}
  t[0] = x;
  double r = t[0] * x;
  free(t);
  return r;
}

double movedNew(double x) {
  double *t = new double[4]; // expected-error {{pointer 't' to a heap buffer is moved or reassigned; keep it and index the buffer (t[i])}}
  t[0] = x;
  t++;
  return t[0] * x;
}

struct Cell {
  double v;
};
double singleNew(double x, double *other) {
  Cell *c = new Cell{x}; // expected-error {{a heap buffer of this type is not supported; allocate numbers or vectors}}
  double r = c->v * x;
  delete other; // expected-error {{'delete' is supported only as 'delete[] t' of a buffer 't = new T[N]' (or 'delete p' of 'p = new T(v)') of the same function (a local array)}}
  return r;
}

// Member functions and calls taking or returning structs are lowered into
// their callers (cxx/member-functions.cpp, cxx/struct-arguments.cpp); what
// that cannot do is an error that says what to write instead.
struct Shape {
  double s;
  virtual double area() const { return s * s; }
};
double virtualCall(const Shape &sh, double x) {
  return sh.area() * x; // expected-error {{the call of the virtual member function 'area' goes through a reference or pointer whose dynamic type meshad does not know; call it on an object of the class (a local or value parameter), mark the class 'final', or call a non-virtual member function or a free function}}
}
struct Plate {
  double t;
  virtual double stiffness() const { return t * t; }
  // `this` of an object whose class is not known (a reference parameter).
  double load(double x) const { return stiffness() * x; } // expected-error {{the call of the virtual member function 'stiffness' goes through a reference or pointer whose dynamic type meshad does not know}}
};
double virtualOnThis(const Plate &p, double x) { return p.load(x); }
struct Body {
  double m;
  virtual double weight() const { return m; }
};
struct Ball : Body {
  double m; // hides Body::m
  double weight() const override { return 2 * m; }
};
double dataInBase(double x) {
  Ball b; // expected-error {{objects of 'Ball', a class with base classes that are virtual, not public or have constructors, or with a member that hides one of a base, are not supported; meshad handles structs of public data members whose bases are such structs or interfaces (their virtual functions too): move the members into the class, or write a free function that takes the values}}
  return b.weight() * x; // expected-error {{cannot lower the call of 'weight': struct 'Ball' has base classes that are virtual, not public or have constructors, or a member that hides one of a base; meshad handles plain structs of public data members (write a free function that takes the values)}}
}
struct Hidden {
  void set(double x) { v = x; }
  double get() const { return v; }

private:
  double v;
};
double privateMember(double x) {
  Hidden h;
  h.set(x); // expected-error {{cannot lower the call of 'set': struct 'Hidden' has the private or protected member 'v'; meshad handles plain structs of public data members (write a free function that takes the values)}}
  return h.get() * x; // expected-error {{cannot lower the call of 'get'}}
}
struct Pair2 {
  double a, b;
  double smaller() const {
    if (a > b)
      return b; // expected-error {{a 'return' before the end of 'smaller' is not supported (meshad lowers it into its callers); set a result variable and return it at the end}}
    return a;
  }
};
double earlyReturn(double x) {
  Pair2 p{x * x, 2.0};
  return p.smaller();
}
double power(Pair2 p, int n) {
  return n > 0 ? p.a * power(p, n - 1) : 1.0; // expected-error {{the recursive call of 'power' is not supported (meshad lowers member functions and functions taking or returning structs into their callers); write a loop}}
}
double recursive(double x) {
  Pair2 p{x, 1.0};
  return power(p, 3);
}
double selectStruct(double x, bool c) {
  Pair2 p{x, 1.0}, q{1.0, x};
  Pair2 r = c ? p : q; // expected-error {{this struct value is not supported; assign it to a variable first, or assign the members}}
  return r.a * r.b;
}
struct Built {
  double a;
  Built(double v) : a(v * v) {}
};
double constructed(double x) {
  Built b(x); // expected-error {{constructor call of 'Built' is not supported; initialize it with a brace list ({a, b, c}) or assign its members}}
  return b.a;
}

void requests() {
  meshad::differentiate(unsequenced, "x");
  meshad::differentiate(breakInCase, "x");
  meshad::gradient(continueInDo, "x");
  meshad::gradient(continueWithComma, "x");
  meshad::differentiate(overMember, "x");
  meshad::differentiate(caseRange, "x");
  meshad::differentiate(crossCase, "x");
  meshad::differentiate(lambda, "x");
  meshad::differentiate(reinterpret, "x");
  meshad::differentiate(cStyleCast, "x");
  meshad::gradient(printed, "x");
  meshad::differentiate(derefRef, "x");
  meshad::gradient(movedPointer, "x");
  meshad::gradient(ownRef, "x");
  meshad::hvp(nestedWrites, "x");
  meshad::gradient(dynamicNew, "x");
  meshad::gradient(dynamicMalloc, "x");
  meshad::gradient(movedNew, "x");
  meshad::gradient(singleNew, "x");
  meshad::differentiate(virtualCall, "x");
  meshad::gradient(dataInBase, "x");
  meshad::differentiate(virtualOnThis, "x");
  meshad::gradient(privateMember, "x");
  meshad::gradient(earlyReturn, "x");
  meshad::differentiate(recursive, "x");
  meshad::gradient(selectStruct, "x");
  meshad::differentiate(constructed, "x");
}
