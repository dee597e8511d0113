// The methods of the results model (include/exactune/results.hpp): looking a
// record up by name, and a shape's fastest exact variant, as the gate, the
// reports and the chooser do; counting a figure's SM clock into its shape's record.
#include <algorithm>

#include <exactune/results.hpp>

namespace exactune {

const VariantResult* ShapeResult::find(const std::string& name) const {
  const auto it =
      std::find_if(variants.begin(), variants.end(), [&](const VariantResult& v) { return v.variant == name; });
  return it == variants.end() ? nullptr : &*it;
}

const VariantResult* ShapeResult::fastest_exact(TimingRegime regime) const {
  const VariantResult* fastest = nullptr;
  for (const VariantResult& v : variants) {
    const std::optional<Timing>& t = v.timing(regime);
    if (v.exact && t && (fastest == nullptr || t->median_us < fastest->timing(regime)->median_us)) fastest = &v;
  }
  return fastest;
}

const ShapeResult* SweepResults::find(const std::string& name) const {
  const auto it =
      std::find_if(shapes.begin(), shapes.end(), [&](const ShapeResult& s) { return s.shape.name == name; });
  return it == shapes.end() ? nullptr : &*it;
}

void ShapeResult::note_sm_clock(const std::string& figure, int mhz, std::optional<int> default_mhz) {
  if (!sm_clock) {
    sm_clock = SmClockRecord{};
    sm_clock->min_mhz = sm_clock->max_mhz = mhz;
  }
  SmClockRecord& r = *sm_clock;
  if (default_mhz && *default_mhz > 0) r.default_mhz = *default_mhz;
  r.min_mhz = std::min(r.min_mhz, mhz);
  r.max_mhz = std::max(r.max_mhz, mhz);
  ++r.figures;
  if (r.default_mhz > 0 && mhz < kThrottledClockFraction * r.default_mhz) r.throttled.push_back(figure);
}

}  // namespace exactune
