// The methods of the results model (include/exactune/results.hpp): looking a
// record up by name, and a shape's fastest exact variant, as the gate, the
// reports and the chooser do.
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

}  // namespace exactune
