// dim: 3
// cmath: std:: qualified calls.
#include <algorithm>
double m_std_qualified(const double *x) {
  return std::exp(x[0]) * std::sin(x[1]) + std::sqrt(x[2]) +
         std::max(x[0], 2.0) + std::min(x[1], -1.0);
}
