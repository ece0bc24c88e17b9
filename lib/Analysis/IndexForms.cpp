//===- Analysis/IndexForms.cpp - Index expressions as affine forms --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The algebra of affine forms (sums, products distributed over monomials,
/// the folding of blockIdx*blockDim + threadIdx into gid), the thread
/// dimensions a kernel reads, and the spelling of forms for remarks. The
/// evaluation of a kernel's expressions is IndexEvaluation.cpp, of its
/// variables IndexVariables.cpp, of its loads IndexGathers.cpp.
///
//===----------------------------------------------------------------------===//

#include "Analysis/IndexForms.h"
#include "Analysis/IRWalk.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdlib>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using llvm::cast;
using llvm::dyn_cast;

//===----------------------------------------------------------------------===//
// Affine forms
//===----------------------------------------------------------------------===//

/// The most atoms a monomial may have before a product becomes opaque.
static constexpr size_t MaxMonomialAtoms = 4;

std::optional<Atom> ownership::threadAtomOf(const Monomial &M) {
  for (const Atom &A : M)
    if (A.isThreadDependent())
      return A;
  return std::nullopt;
}

bool Affine::isThreadDependent() const {
  return llvm::any_of(Terms, [](const auto &T) {
    return threadAtomOf(T.first).has_value();
  });
}

bool Affine::isAtom(AtomKind K, unsigned Dim) const {
  if (Const != 0 || Terms.size() != 1 || Terms.begin()->second != 1)
    return false;
  const Monomial &M = Terms.begin()->first;
  return M.size() == 1 && M.front().Kind == K && M.front().Dim == Dim;
}

bool ownership::addScaled(Affine &A, const Affine &B, long long Sign) {
  long long Scaled;
  if (llvm::MulOverflow(B.Const, Sign, Scaled) ||
      llvm::AddOverflow(A.Const, Scaled, A.Const))
    return false;
  for (const auto &[M, C] : B.Terms) {
    long long &Slot = A.Terms[M];
    if (llvm::MulOverflow(C, Sign, Scaled) ||
        llvm::AddOverflow(Slot, Scaled, Slot))
      return false;
    if (Slot == 0)
      A.Terms.erase(M);
  }
  return true;
}

/// Replaces the atoms \p A and \p B of \p M by \p With; false when \p M
/// lacks one of them.
static bool replacePair(Monomial &M, Atom A, Atom B, Atom With) {
  auto IA = llvm::find(M, A);
  if (IA == M.end())
    return false;
  M.erase(IA);
  auto IB = llvm::find(M, B);
  if (IB == M.end()) {
    M.push_back(A);
    llvm::sort(M);
    return false;
  }
  M.erase(IB);
  M.push_back(With);
  llvm::sort(M);
  return true;
}

/// Sorts \p M and names the products blockIdx*blockDim and blockDim*gridDim.
static void normalize(Monomial &M) {
  llvm::sort(M);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned D = 0; D < 3 && !Changed; ++D)
      Changed = replacePair(M, {AtomKind::BlockIdx, D}, {AtomKind::BlockDim, D},
                            {AtomKind::BlockBase, D}) ||
                replacePair(M, {AtomKind::BlockDim, D}, {AtomKind::GridDim, D},
                            {AtomKind::TotalThreads, D});
  }
}

/// \p M with its atom \p From replaced by \p To.
static Monomial substitute(Monomial M, Atom From, Atom To) {
  std::replace(M.begin(), M.end(), From, To);
  llvm::sort(M);
  return M;
}

/// Folds one c*blockIdx.d*blockDim.d*M + c*threadIdx.d*M pair; false when
/// there is none.
static bool foldOne(Affine &A) {
  for (const auto &[M, C] : A.Terms) {
    std::optional<Atom> T = threadAtomOf(M);
    if (!T || T->Kind != AtomKind::BlockBase)
      continue;
    Monomial Tid = substitute(M, *T, {AtomKind::ThreadIdx, T->Dim});
    auto It = A.Terms.find(Tid);
    if (It == A.Terms.end() || It->second != C)
      continue;
    Monomial Base = M;
    long long Coeff = C;
    Monomial Gid = substitute(M, *T, {AtomKind::Gid, T->Dim});
    A.Terms.erase(It);
    A.Terms.erase(Base); // Invalidates the loop: return at once.
    if ((A.Terms[Gid] += Coeff) == 0)
      A.Terms.erase(Gid);
    return true;
  }
  return false;
}

void ownership::foldGid(Affine &A) {
  while (foldOne(A)) {
  }
}

namespace {
enum class ProductError { None, Overflow, NotAffine };
} // namespace

/// Adds C * M to \p Out.
static ProductError addTerm(Affine &Out, Monomial M, long long C) {
  normalize(M);
  if (M.size() > MaxMonomialAtoms ||
      llvm::count_if(M, [](const Atom &A) { return A.isThreadDependent(); }) >
          1)
    return ProductError::NotAffine;
  long long &Slot = Out.Terms[M];
  if (llvm::AddOverflow(Slot, C, Slot))
    return ProductError::Overflow;
  if (Slot == 0)
    Out.Terms.erase(M);
  return ProductError::None;
}

/// L * R, distributed.
static ProductError multiply(const Affine &L, const Affine &R, Affine &Out) {
  Out = Affine();
  if (llvm::MulOverflow(L.Const, R.Const, Out.Const))
    return ProductError::Overflow;
  auto AddScaled = [&](const Affine &A, long long Factor) {
    Affine Scaled;
    Scaled.Terms = A.Terms;
    return addScaled(Out, Scaled, Factor);
  };
  if (!AddScaled(L, R.Const) || !AddScaled(R, L.Const))
    return ProductError::Overflow;
  for (const auto &[LM, LC] : L.Terms)
    for (const auto &[RM, RC] : R.Terms) {
      long long C;
      if (llvm::MulOverflow(LC, RC, C))
        return ProductError::Overflow;
      Monomial M = LM;
      M.insert(M.end(), RM.begin(), RM.end());
      if (ProductError E = addTerm(Out, std::move(M), C);
          E != ProductError::None)
        return E;
    }
  foldGid(Out);
  return ProductError::None;
}

Eval IndexEvaluator::evalProduct(const BinaryExpr *B, const Affine &L,
                                 const Affine &R) {
  Affine Result;
  switch (multiply(L, R, Result)) {
  case ProductError::None:
    return Eval::ok(Result);
  case ProductError::Overflow:
    return Eval::fail(irwalk::spell(B) + " overflows", B);
  case ProductError::NotAffine:
    break;
  }
  Eval LE = Eval::ok(L), RE = Eval::ok(R);
  return opaque(B, {&LE, &RE});
}

/// Adds to \p Dims the dimensions of the thread and block indices that
/// \p F and its callees read outside the statements \p Skip names; \p Seen
/// guards against recursion.
static void collectThreadDims(const Function &F, unsigned &Dims,
                              llvm::SmallPtrSetImpl<const Function *> &Seen,
                              llvm::function_ref<bool(const Stmt *)> Skip) {
  if (!F.getBody() || !Seen.insert(&F).second)
    return;
  irwalk::forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (Skip && Skip(S))
      return;
    for (const Expr *E : irwalk::ownExprs(S))
      irwalk::forEachExpr(E, [&](const Expr *Sub) {
        if (const auto *B = dyn_cast<BuiltinExpr>(Sub)) {
          if (B->getBuiltin() == BuiltinExpr::Builtin::ThreadIdx ||
              B->getBuiltin() == BuiltinExpr::Builtin::BlockIdx)
            Dims |= 1u << std::min(B->getDim(), 2u);
        } else if (const auto *C = dyn_cast<CallExpr>(Sub)) {
          if (const Function *Callee = C->getUserCallee())
            collectThreadDims(*Callee, Dims, Seen, Skip);
        }
      });
  });
}

unsigned ownership::threadDimsOf(
    const Function &Kernel, llvm::function_ref<bool(const Stmt *)> Skip) {
  unsigned Dims = 1;
  llvm::SmallPtrSet<const Function *, 4> Seen;
  collectThreadDims(Kernel, Dims, Seen, Skip);
  return Dims;
}

//===----------------------------------------------------------------------===//
// Spelling
//===----------------------------------------------------------------------===//

static const char *dimName(unsigned Dim) {
  static const char *Names[] = {"x", "y", "z"};
  return Names[Dim < 3 ? Dim : 0];
}

std::string IndexEvaluator::spellAtom(const Atom &A) const {
  std::string D = dimName(A.Dim);
  switch (A.Kind) {
  case AtomKind::Gid: {
    auto It = GidNames.find(A.Dim);
    return It != GidNames.end() ? It->second : "gid." + D;
  }
  case AtomKind::GridStride:
    return Symbols[A.Id].Name;
  case AtomKind::Gathered:
    return Gathers[A.Id].Name;
  case AtomKind::Symbol: {
    const std::string &Name = Symbols[A.Id].Name;
    return Name.find(' ') == std::string::npos ? Name : "(" + Name + ")";
  }
  case AtomKind::ThreadIdx:
    return "threadIdx." + D;
  case AtomKind::BlockIdx:
    return "blockIdx." + D;
  case AtomKind::BlockBase:
    return "blockIdx." + D + "*blockDim." + D;
  case AtomKind::BlockDim:
    return "blockDim." + D;
  case AtomKind::GridDim:
    return "gridDim." + D;
  case AtomKind::TotalThreads:
    return "blockDim." + D + "*gridDim." + D;
  }
  return "?";
}

std::string IndexEvaluator::spellMonomial(const Monomial &M) const {
  std::string Result;
  for (const Atom &A : M) // Sorted: the thread atom (if any) comes first.
    Result += (Result.empty() ? "" : "*") + spellAtom(A);
  return Result;
}

std::string IndexEvaluator::spell(const Affine &A) const {
  // Outer dimensions and longer products first: "gy*W + gx + 1".
  std::vector<std::pair<const Monomial *, long long>> Order;
  for (const auto &[M, C] : A.Terms)
    Order.push_back({&M, C});
  auto Rank = [](const Monomial &M) {
    std::optional<Atom> T = threadAtomOf(M);
    return std::make_pair(T ? static_cast<int>(T->Dim) : -1, M.size());
  };
  std::stable_sort(Order.begin(), Order.end(), [&](auto &L, auto &R) {
    return Rank(*L.first) > Rank(*R.first);
  });
  std::string Result;
  auto Append = [&](long long C, const std::string &Text) {
    if (Result.empty())
      Result = (C < 0 ? "-" : "") + Text;
    else
      Result += (C < 0 ? " - " : " + ") + Text;
  };
  for (const auto &[M, C] : Order) {
    unsigned long long Abs = C < 0 ? 0ULL - static_cast<unsigned long long>(C)
                                   : static_cast<unsigned long long>(C);
    Append(C, (Abs == 1 ? "" : std::to_string(Abs) + "*") + spellMonomial(*M));
  }
  if (A.Const != 0 || Result.empty()) {
    unsigned long long Abs =
        A.Const < 0 ? 0ULL - static_cast<unsigned long long>(A.Const)
                    : static_cast<unsigned long long>(A.Const);
    if (Result.empty())
      Result = std::to_string(A.Const);
    else
      Append(A.Const, std::to_string(Abs));
  }
  return Result;
}
