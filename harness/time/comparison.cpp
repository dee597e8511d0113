#include "time/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <exactune/error.hpp>

namespace exactune {
namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The standard normal quantile, by bisection on the CDF: called a few times a
// comparison, so exactness to 1e-12 matters more than speed.
double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = (lo + hi) / 2;
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// The quantile q of sorted values, linearly interpolated (R's type 7).
double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

std::vector<double> logs_of(std::span<const double> samples, const char* which) {
  if (samples.empty()) throw error(fmt::format("compare_samples: the {} has no samples", which));
  std::vector<double> logs;
  logs.reserve(samples.size());
  for (double s : samples) {
    if (!std::isfinite(s) || s <= 0) {
      throw error(fmt::format("compare_samples: the {} has a sample of {}, not a positive finite time", which, s));
    }
    logs.push_back(std::log(s));
  }
  return logs;
}

// The Mann-Whitney statistic's standard deviation under "no difference", with
// the correction for tied values in the pooled samples.
double rank_sum_sd(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled(a);
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::sort(pooled.begin(), pooled.end());
  double ties = 0;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j] == pooled[i]) ++j;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  const double n = static_cast<double>(a.size()), m = static_cast<double>(b.size()), total = n + m;
  if (total < 2) return 0;
  return std::sqrt(n * m / 12 * ((total + 1) - ties / (total * (total - 1))));
}

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster: return "faster";
    case Verdict::same: return "same";
    case Verdict::slower: return "slower";
    case Verdict::ambiguous: return "ambiguous";
  }
  return "ambiguous";
}

std::string Comparison::describe() const {
  const auto signed_percent = [](double ratio) {
    return std::isfinite(ratio) && ratio > 0 ? fmt::format("{:+.1f}%", (ratio - 1) * 100) : std::string("unbounded");
  };
  return fmt::format("{} [{}, {}]", signed_percent(ratio), signed_percent(low), signed_percent(high));
}

Verdict verdict_of(double low, double high, double effect) {
  const double up = 1 + effect, down = 1 / (1 + effect);
  if (low > 1 && high > up) return Verdict::slower;
  if (high < 1 && low < down) return Verdict::faster;
  if (low >= down && high <= up) return Verdict::same;
  return Verdict::ambiguous;
}

Comparison compare_samples(std::span<const double> baseline, std::span<const double> candidate,
                           const ComparisonOptions& options) {
  if (!(options.effect >= 0) || !std::isfinite(options.effect) || !(options.confidence > 0) ||
      !(options.confidence < 1) || !(options.between_runs >= 0) || !std::isfinite(options.between_runs) ||
      options.baseline_runs < 1 || options.candidate_runs < 1) {
    throw error(fmt::format(
        "compare_samples: effect {}, confidence {}, between-run noise {}, runs {} and {}: out of range", options.effect,
        options.confidence, options.between_runs, options.baseline_runs, options.candidate_runs));
  }
  const std::vector<double> a = logs_of(baseline, "baseline"), b = logs_of(candidate, "candidate");
  const double n = static_cast<double>(a.size()), m = static_cast<double>(b.size());

  // Every pairwise difference, sorted: the estimate is their median, the
  // interval two of their order statistics, U how many are positive.
  std::vector<double> differences;
  differences.reserve(a.size() * b.size());
  double u = 0;
  for (double x : a) {
    for (double y : b) {
      differences.push_back(y - x);
      u += y > x ? 1.0 : y == x ? 0.5 : 0.0;
    }
  }
  std::sort(differences.begin(), differences.end());
  const double pairs = static_cast<double>(differences.size());
  const double estimate = quantile_of_sorted(differences, 0.5);

  const double z = normal_quantile(1 - (1 - options.confidence) / 2);
  const double shift_sd = std::sqrt(n * m * (n + m + 1) / 12);
  const double cut = std::floor(pairs / 2 - z * shift_sd);
  const double inf = std::numeric_limits<double>::infinity();
  double log_low = -inf, log_high = inf;
  if (cut >= 0) {
    log_low = differences[static_cast<std::size_t>(cut)];
    log_high = differences[differences.size() - 1 - static_cast<std::size_t>(cut)];
  }

  Comparison c;
  c.baseline_samples = a.size();
  c.candidate_samples = b.size();
  const double sd = rank_sum_sd(a, b);
  if (sd > 0) {
    c.p_slower = 1 - normal_cdf((u - pairs / 2 - 0.5) / sd);
    c.p_faster = normal_cdf((u - pairs / 2 + 0.5) / sd);
  }
  if (options.between_runs > 0) {
    // Each run's level differs by the between-run noise, so the difference of
    // two single runs' by sqrt(2) of it, less where a side is the mean of
    // several runs: added to the interval's half-widths in quadrature, and the
    // p-values taken from the same normal approximation of the estimate.
    const double run_sd =
        std::sqrt(1.0 / options.baseline_runs + 1.0 / options.candidate_runs) * std::log1p(options.between_runs);
    const auto widen = [&](double half) { return std::sqrt(half * half + (z * run_sd) * (z * run_sd)); };
    if (std::isfinite(log_low)) {
      const double within_sd = (log_high - log_low) / (2 * z);
      log_low = estimate - widen(estimate - log_low);
      log_high = estimate + widen(log_high - estimate);
      const double total_sd = std::sqrt(within_sd * within_sd + run_sd * run_sd);
      c.p_slower = 1 - normal_cdf(estimate / total_sd);
      c.p_faster = normal_cdf(estimate / total_sd);
    }
  }
  c.ratio = std::exp(estimate);
  c.low = std::exp(log_low);
  c.high = std::exp(log_high);
  c.verdict = verdict_of(c.low, c.high, options.effect);
  return c;
}

std::vector<bool> holm_rejections(const std::vector<double>& p_values, double alpha) {
  std::vector<std::size_t> order(p_values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return p_values[i] < p_values[j]; });
  std::vector<bool> rejected(p_values.size(), false);
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (!(p_values[order[k]] <= alpha / static_cast<double>(order.size() - k))) break;
    rejected[order[k]] = true;
  }
  return rejected;
}

double median_of(std::vector<double> samples) {
  if (samples.empty()) throw error("median_of: no samples");
  std::sort(samples.begin(), samples.end());
  return quantile_of_sorted(samples, 0.5);
}

double robust_spread(std::vector<double> samples) {
  if (samples.size() < 2) return 0;
  std::sort(samples.begin(), samples.end());
  const double median = quantile_of_sorted(samples, 0.5);
  if (!(median > 0)) return 0;
  return (quantile_of_sorted(samples, 0.75) - quantile_of_sorted(samples, 0.25)) / median;
}

}  // namespace exactune
